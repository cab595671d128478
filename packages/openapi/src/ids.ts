import { createHash } from "node:crypto";
import { isValidIdentifier, MAX_IDENTIFIER_CHARS } from "@cyrnel/sdk";
import { stripPathSuffix } from "./operations.js";

/**
 * Tool ids: valid, non-reserved TypeScript identifiers (what process code
 * writes after `.tools.`).
 *
 * - An `operationId` that already is a valid identifier is kept verbatim;
 *   one that only is a reserved word gets a `_` suffix (`delete` → `delete_`).
 * - Otherwise it is split into ASCII letter/digit words (accents are
 *   stripped first) and camel-cased: `repos/get-content` → `reposGetContent`.
 *   The first word keeps its case; later words get an upper-case first letter.
 * - No `operationId` (or one with no letters or digits): the same rule over
 *   the method and the path, placeholders included: `GET /pets/{petId}` →
 *   `getPetsPetId`.
 * - A leading digit gets a `_` prefix (`2fa` → `_2fa`); a reserved word
 *   (`delete`, `__proto__`, `constructor`, …) gets a `_` suffix.
 * - Duplicates, in document order: the first keeps the id, later ones get
 *   `_2`, `_3`, … skipping any id another operation has as its own.
 * - Long ids: one over MAX_BASE_CHARS characters keeps its start and ends
 *   with `_` and 8 hex digits of its SHA-256 (`veryLong…_3f2a9c01`), so ids
 *   stay distinct and, with a duplicate's suffix, within the SDK's
 *   `MAX_IDENTIFIER_CHARS`.
 */

/** Room left under MAX_IDENTIFIER_CHARS for a duplicate's `_NNNNNNN` suffix. */
const MAX_BASE_CHARS = MAX_IDENTIFIER_CHARS - 8;

function words(text: string): string[] {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== "");
}

function camelCase(parts: string[]): string {
  return parts.map((word, index) => (index === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join("");
}

/** Make `candidate` a valid identifier (non-empty input assumed). */
function legalise(candidate: string): string {
  let id = /^[0-9]/.test(candidate) ? `_${candidate}` : candidate;
  if (id.length > MAX_BASE_CHARS) {
    const digest = createHash("sha256").update(id).digest("hex").slice(0, 8);
    id = `${id.slice(0, MAX_BASE_CHARS - 9)}_${digest}`;
  }
  while (!isValidIdentifier(id)) id = `${id}_`;
  return id;
}

/** The id an operation would get on its own, before de-duplication. */
export function baseToolId(operationId: string | undefined, method: string, path: string): string {
  if (operationId !== undefined) {
    // Already an identifier, or a reserved word that `legalise` suffixes.
    if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(operationId)) return legalise(operationId);
    const parts = words(operationId);
    if (parts.length > 0) return legalise(camelCase(parts));
  }
  const parts = words(`${method.toLowerCase()} ${stripPathSuffix(path)}`);
  return legalise(camelCase(parts));
}

/** Unique ids for `bases` (in document order), as described above. */
export function uniqueToolIds(bases: readonly string[]): string[] {
  const claimed = new Set(bases);
  const taken = new Set<string>();
  return bases.map((base) => {
    let id = base;
    for (let n = 2; taken.has(id); n++) {
      const candidate = `${base}_${n}`;
      if (!taken.has(candidate) && !claimed.has(candidate)) id = candidate;
    }
    taken.add(id);
    return id;
  });
}
