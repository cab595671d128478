/**
 * Deterministic sample values for a tool schema, as an agent would write
 * them from the schema alone: every property set (each oneof's first
 * member only, read from the schema's `not: {anyOf: [{required: [a, b]}]}`),
 * named types followed to `depth` levels (deeper, only required
 * properties), values that exercise the mapping (negative 64-bit integers,
 * base64, timestamps, durations, non-zero enums). `Any` is left out (its
 * type must be named).
 */
type Schema = Record<string, any>;

export function sample(root: Schema, depth = 3): unknown {
  const defs: Record<string, Schema> = root.$defs ?? {};
  const resolve = (schema: Schema): Schema =>
    typeof schema.$ref === "string" ? defs[schema.$ref.slice("#/$defs/".length)]! : schema;
  const value = (raw: Schema, level: number): unknown => {
    const schema = resolve(raw);
    if (schema.required?.[0] === "@type") return undefined;
    const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
    if (Array.isArray(schema.enum)) return schema.enum[schema.enum.length - 1];
    if (types.length === 0) return { any: [1, "two", null, true] };
    const type = types.find((t) => t !== "null")!;
    switch (type) {
      case "object": {
        if (!schema.properties) return { key: "value", n: 1 };
        const required = new Set<string>(schema.required ?? []);
        const conflicts = new Map<string, Set<string>>();
        for (const pair of schema.not?.anyOf ?? []) {
          const [a, b] = pair.required as [string, string];
          (conflicts.get(a) ?? conflicts.set(a, new Set()).get(a)!).add(b);
          (conflicts.get(b) ?? conflicts.set(b, new Set()).get(b)!).add(a);
        }
        const out: Record<string, unknown> = {};
        for (const [name, property] of Object.entries(schema.properties as Record<string, Schema>)) {
          if (!required.has(name) && level >= depth) continue;
          if ([...(conflicts.get(name) ?? [])].some((other) => other in out)) continue;
          if (property.additionalProperties && property.type === "object" && !property.properties) {
            const key = property.propertyNames?.pattern?.includes("true") ? "true" : property.propertyNames ? "7" : "k";
            const item = level + 1 >= depth ? undefined : value(property.additionalProperties, level + 1);
            out[name] = item === undefined ? {} : { [key]: item };
            continue;
          }
          const item = value(property, level + 1);
          if (item !== undefined) out[name] = item;
        }
        return out;
      }
      case "array": {
        const item = level + 1 >= depth && schema.items.$ref ? undefined : value(schema.items, level + 1);
        return item === undefined ? [] : [item];
      }
      case "string":
        if (schema.format === "date-time") return "2024-05-01T12:30:00.250Z";
        if (schema.contentEncoding === "base64") return "AQID/w==";
        if (typeof schema.pattern === "string") {
          if (schema.pattern.includes("s$")) return "-1.5s";
          return schema.pattern.startsWith("^-") ? "-9007199254740993" : "18446744073709551615";
        }
        return "text";
      case "integer":
        return schema.minimum === 0 ? 4294967295 : -7;
      case "number":
        return -2.5;
      case "boolean":
        return true;
    }
    return null;
  };
  return value(root, 0);
}
