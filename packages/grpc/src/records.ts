/**
 * Safe access to plain JSON objects whose keys come from callers and
 * definitions: reads see own properties only, so `__proto__` or
 * `constructor` are ordinary keys.
 */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The own property `key` of `value`, or `undefined`. */
export function own(value: unknown, key: string): unknown {
  return isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}
