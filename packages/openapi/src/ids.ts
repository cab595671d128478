import { camelCaseWords, identifierWords, legaliseIdentifier, MAX_IDENTIFIER_CHARS } from "@cyrnel/sdk";
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

const legalise = (candidate: string) => legaliseIdentifier(candidate, MAX_BASE_CHARS);

/** The id an operation would get on its own, before de-duplication. */
export function baseToolId(operationId: string | undefined, method: string, path: string): string {
  if (operationId !== undefined) {
    // Already an identifier, or a reserved word that `legalise` suffixes.
    if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(operationId)) return legalise(operationId);
    const parts = identifierWords(operationId);
    if (parts.length > 0) return legalise(camelCaseWords(parts));
  }
  const parts = identifierWords(`${method.toLowerCase()} ${stripPathSuffix(path)}`);
  return legalise(camelCaseWords(parts));
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
