import { createHash } from "node:crypto";
import { camelCaseWords, identifierWords, legaliseIdentifier, MAX_IDENTIFIER_CHARS } from "@cyrnel/sdk";

/**
 * Stage 2: tool ids from MCP tool names. An MCP name may hold `-`, `.`, `/`
 * and other characters code cannot write after `.tools.`; a cyrnel id is a
 * valid, non-reserved TypeScript identifier.
 *
 * - A name that already is a valid identifier is kept verbatim (`read_file`);
 *   a reserved word gets a `_` suffix (`delete` → `delete_`).
 * - Otherwise it is split into ASCII letter/digit words (accents stripped
 *   first) and camel-cased: `get-sum` → `getSum`, `git.status` → `gitStatus`.
 * - A leading digit gets a `_` prefix (`2fa` → `_2fa`).
 * - A name with no ASCII letter or digit (`搜索`) becomes `tool_` and 8 hex
 *   digits of its SHA-256: stable across installs and distinct per name.
 * - Long ids keep their start and end with `_` and 8 hex digits of the
 *   SHA-256, within `MAX_IDENTIFIER_CHARS` with room for a suffix below.
 * - Collisions (`get-sum` and `getSum` both give `getSum`): a tool whose
 *   name *is* the id keeps it; the others, in the server's list order, get
 *   `_2`, `_3`, … skipping ids another tool has as its own. The server's
 *   order is the only input besides the names, so the same list always gives
 *   the same ids.
 */

/** Room left under MAX_IDENTIFIER_CHARS for a duplicate's `_NNNNNNN` suffix. */
const MAX_BASE_CHARS = MAX_IDENTIFIER_CHARS - 8;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const digest = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 8);

const legalise = (candidate: string) => legaliseIdentifier(candidate, MAX_BASE_CHARS);

/** The id one MCP tool name gets on its own, before de-duplication. */
export function baseToolId(name: string): string {
  if (IDENTIFIER.test(name)) return legalise(name);
  const parts = identifierWords(name);
  if (parts.length === 0) return `tool_${digest(name)}`;
  return legalise(camelCaseWords(parts));
}

/** Unique ids for the tool `names` (in the server's order), as described above. */
export function toolIds(names: readonly string[]): string[] {
  const bases = names.map(baseToolId);
  // First pass: the names that are their own id claim it (the first, should a server list a name twice).
  const taken = new Set<string>();
  const ids = names.map((name, index) => {
    if (bases[index] !== name || taken.has(name)) return undefined;
    taken.add(name);
    return name;
  });
  const claimed = new Set(bases);
  return bases.map((base, index) => {
    const own = ids[index];
    if (own !== undefined) return own;
    let id = base;
    for (let n = 2; taken.has(id); n++) {
      const candidate = `${base}_${n}`;
      if (!taken.has(candidate) && !claimed.has(candidate)) id = candidate;
    }
    taken.add(id);
    return id;
  });
}
