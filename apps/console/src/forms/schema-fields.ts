/**
 * Whether a config or secrets schema has any field to show. Apart from the form itself (schema-form.tsx) so that a
 * page can decide between a form and "no configuration" without loading rjsf, which is fetched only when a form shows.
 */
type Json = Record<string, unknown>;

export const propertiesOf = (schema: Json) => Object.keys((schema.properties as Json | undefined) ?? {});

export const hasFields = (schema: Json) =>
  propertiesOf(schema).length > 0 ||
  schema.additionalProperties === true ||
  typeof schema.additionalProperties === "object";
