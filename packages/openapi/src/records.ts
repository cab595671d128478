/**
 * Safe access to plain JSON objects whose keys come from documents. Keys
 * such as `__proto__` or `constructor` are ordinary data here: reads only
 * see own properties, and writes define own properties instead of running
 * the `__proto__` setter.
 */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The own property `key` of `value`, or `undefined`. */
export function own(value: unknown, key: string): unknown {
  return isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

/** The own property `key` of `value` when it is a string. */
export function ownString(value: unknown, key: string): string | undefined {
  const found = own(value, key);
  return typeof found === "string" ? found : undefined;
}

/** The own property `key` of `value` when it is a plain object. */
export function ownRecord(value: unknown, key: string): JsonRecord | undefined {
  const found = own(value, key);
  return isRecord(found) ? found : undefined;
}

/** The own property `key` of `value` when it is an array. */
export function ownArray(value: unknown, key: string): unknown[] | undefined {
  const found = own(value, key);
  return Array.isArray(found) ? found : undefined;
}

/** Sets `target[key] = value` as an own, enumerable data property, whatever the key. */
export function define<T>(target: Record<string, T>, key: string, value: NoInfer<T>): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A plain object built from `entries` with {@link define}. */
export function recordFrom<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [key, value] of entries) define(out, key, value);
  return out;
}

/** Own enumerable `[key, value]` pairs of `value` (none when it is not a plain object). */
export function entriesOf(value: unknown): [string, unknown][] {
  return isRecord(value) ? Object.entries(value) : [];
}
