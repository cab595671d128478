/**
 * JSON Merge Patch (RFC 7396): `patch` applied to `target`, neither
 * changed. An object patch merges key by key, `null` removing a key; any
 * other patch replaces the target. Keys are copied as own data properties,
 * so a `"__proto__"` key in parsed JSON stays a key and never sets a
 * prototype.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else {
      Object.defineProperty(result, key, {
        value: mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
