import { isSchemaObject, type Schema } from "./schema.js";

/** Keywords that constrain a value beyond its type, in the order they are shown. */
const CONSTRAINTS = [
  "format",
  "minimum",
  "exclusiveMinimum",
  "maximum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "default",
] as const;

export type ConstraintKeyword = (typeof CONSTRAINTS)[number];

/**
 * The constraints a schema states about its value (`format`, bounds,
 * lengths, `pattern`, `default`, …) as keyword/value pairs. Enum values are
 * not among them: types and docs show those as the type itself.
 */
export function constraintsOf(schema: Schema): [ConstraintKeyword, unknown][] {
  if (!isSchemaObject(schema)) return [];
  const out: [ConstraintKeyword, unknown][] = [];
  for (const keyword of CONSTRAINTS) {
    const value = schema[keyword];
    if (value === undefined || (keyword === "uniqueItems" && value !== true)) continue;
    if (keyword !== "default" && typeof value === "object") continue;
    out.push([keyword, value]);
  }
  return out;
}

/** As JSDoc tags: `@format int64 @minimum 1 @default 3`. */
export function constraintTags(schema: Schema): string {
  return constraintsOf(schema)
    .map(([keyword, value]) => (keyword === "uniqueItems" ? "@uniqueItems" : `@${keyword} ${tagValue(keyword, value)}`))
    .join(" ");
}

function tagValue(keyword: ConstraintKeyword, value: unknown): string {
  return keyword === "format" || keyword === "pattern" ? String(value) : (JSON.stringify(value) ?? String(value));
}

const LABELS: Record<ConstraintKeyword, string> = {
  format: "Format",
  minimum: "Minimum",
  exclusiveMinimum: "Greater than",
  maximum: "Maximum",
  exclusiveMaximum: "Less than",
  multipleOf: "Multiple of",
  minLength: "Min length",
  maxLength: "Max length",
  pattern: "Pattern",
  minItems: "Min items",
  maxItems: "Max items",
  uniqueItems: "Unique items",
  minProperties: "Min properties",
  maxProperties: "Max properties",
  default: "Default",
};

/** As sentences for a Markdown table: ``Format: `int64`. Minimum: `1`.`` */
export function constraintNotes(schema: Schema): string[] {
  return constraintsOf(schema).map(([keyword, value]) =>
    keyword === "uniqueItems" ? "Unique items." : `${LABELS[keyword]}: \`${tagValue(keyword, value)}\`.`,
  );
}
