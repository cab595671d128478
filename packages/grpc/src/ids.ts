import { legaliseIdentifier, MAX_IDENTIFIER_CHARS } from "@cyrnel/sdk";

/**
 * Tool ids, from the methods' names (one list for the whole definition, so
 * ids are unique in the service):
 *
 * - A method name no other method of the definition has is the id as it is
 *   (`GetFeature`); proto names are identifiers already.
 * - Names that several services share become `<Service>_<Method>`
 *   (`Greeter_SayHello`, `Health_Check`) for every method of that name,
 *   and, if services of the same name in different packages share it,
 *   `<package>_<Service>_<Method>` with `.` as `_`.
 * - A reserved word gets a `_` suffix (`delete` → `delete_`); an id over
 *   the SDK's limit keeps its start and ends with `_` and 8 hex digits of
 *   its SHA-256.
 *
 * The id depends only on the set of methods, never on their order, so a
 * re-install of the same protos gives the same ids.
 */

export interface MethodName {
  /** `pkg.Service` (no leading dot). */
  service: string;
  method: string;
}

const legalise = (candidate: string) => legaliseIdentifier(candidate);

const shortName = (service: string) => service.slice(service.lastIndexOf(".") + 1);

function count<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/** The id of each method, in the order given. */
export function toolIds(methods: MethodName[]): string[] {
  const byMethod = count(methods, (m) => m.method);
  const byShort = count(methods, (m) => `${shortName(m.service)}.${m.method}`);
  const candidates = methods.map((m) => {
    if (byMethod.get(m.method) === 1) return m.method;
    if (byShort.get(`${shortName(m.service)}.${m.method}`) === 1) return `${shortName(m.service)}_${m.method}`;
    return `${m.service}_${m.method}`.replace(/\./g, "_");
  });
  const ids = candidates.map(legalise);
  // Legalising can, in theory, make two ids equal (a 140-character name and its digest); number the later ones.
  const seen = new Set<string>();
  return ids.map((id) => {
    let unique = id;
    for (let n = 2; seen.has(unique); n++) unique = legalise(`${id.slice(0, MAX_IDENTIFIER_CHARS - 8)}_${n}`);
    seen.add(unique);
    return unique;
  });
}
