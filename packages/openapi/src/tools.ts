import type { JSONSchema, ToolDefinition } from "@cyrnel/sdk";
import { annotationsOf } from "./annotations.js";
import type { SchemeDomain } from "./auth.js";
import { WHOLE_BODY_PART } from "./body.js";
import { type BodyBinding, DOMAIN_FORMAT, type ParameterBinding, type ToolDomain } from "./domain.js";
import { fileInputSchema } from "./files.js";
import { acceptHeader, bodyKind, isJsonType, pickRequestMediaType, pickResponseMediaType } from "./media-types.js";
import type { Operation, OperationParameter, RequestBody, SecurityAlternative } from "./operations.js";
import { BODY_KEY, parameterKeys } from "./parameters.js";
import { define, entriesOf, isRecord, type JsonRecord, own, ownArray } from "./records.js";
import { DRAFT_07, type SchemaEmitter } from "./schemas.js";
import { coveredDescription, coveringScheme } from "./secret-parameters.js";

/**
 * Stage 4 (see the README's table): one normalised operation → one tool. `inputSchema` is an object
 * with a property per parameter (see `parameters.ts` for the names) and
 * `body` for the request body; `outputSchema` describes the success
 * response's body (`{}` when the document declares none).
 */

export function buildTool(
  operation: Operation,
  id: string,
  emitter: SchemaEmitter,
  schemes: Record<string, SchemeDomain>,
): ToolDefinition {
  const label = `${operation.method.toUpperCase()} ${operation.path}`;
  const bodyMedia = operation.body ? pickRequestMediaType(operation.body.content) : undefined;
  const keys = parameterKeys(operation.parameters, bodyMedia !== undefined);

  const properties: Record<string, JSONSchema> = {};
  const required: string[] = [];
  const refs = new Set<string>();
  // Parameters a secret provides are optional: the adapter sends the secret when the caller leaves them out.
  const covering = operation.parameters.map((parameter) => coveringScheme(parameter, operation.security, schemes));
  operation.parameters.forEach((parameter, index) => {
    const key = keys[index]!;
    const { schema, refs: used } = parameterSchema(parameter, emitter);
    for (const ref of used) refs.add(ref);
    const scheme = covering[index];
    const own = typeof schema.description === "string" ? schema.description : undefined;
    define(properties, key, scheme ? { ...schema, description: coveredDescription(own, scheme) } : schema);
    if (parameter.required && !scheme) required.push(key);
  });
  let body: BodyBinding | null = null;
  if (operation.body && bodyMedia) {
    const input = bodySchema(operation.body, bodyMedia, emitter);
    for (const ref of input.refs) refs.add(ref);
    const { schema, binding, fieldsLeft } = withCoveredFields(input, operation, schemes);
    define(properties, BODY_KEY, schema);
    // A body whose every required field a secret provides may be left out: it is sent with those fields.
    if (operation.body.required && fieldsLeft) required.push(BODY_KEY);
    body = binding;
  }
  const inputDefs = emitter.defs(refs, "request");
  const inputSchema: JSONSchema = {
    $schema: DRAFT_07,
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    ...(Object.keys(inputDefs).length > 0 ? { $defs: inputDefs } : {}),
  };

  const parameters: ParameterBinding[] = operation.parameters.map((parameter, index) => ({
    key: keys[index]!,
    name: parameter.name,
    in: parameter.in,
    style: parameter.style,
    explode: parameter.explode,
    allowReserved: parameter.allowReserved,
    ...(parameter.contentType ? { contentType: parameter.contentType } : {}),
    ...(covering[index] ? { secret: covering[index] } : {}),
  }));
  const toolServer = operation.servers[0];
  const adapterDomain: ToolDomain = {
    format: DOMAIN_FORMAT,
    method: operation.method,
    path: operation.path.replace(/#.*$/s, ""),
    server: toolServer
      ? {
          template: toolServer.url,
          variables: Object.fromEntries(toolServer.variables.map((v) => [v.name, v.default])),
        }
      : null,
    parameters,
    body,
    security: operation.security,
    accept: acceptHeader(operation.success?.content.map((entry) => entry.type) ?? []) ?? null,
  };

  const summary = operation.summary;
  const description = operation.description ?? summary ?? label;
  return {
    id,
    name: summary ?? operation.operationId ?? label,
    description: operation.deprecated ? `Deprecated. ${description}` : description,
    inputSchema,
    outputSchema: outputSchema(operation, emitter),
    adapterDomain: adapterDomain as unknown as Record<string, unknown>,
    annotations: annotationsOf(operation.method),
    endpoint: `${operation.method.toUpperCase()} ${adapterDomain.path}`,
    ...secretsOf(operation.security, schemes),
  };
}

/**
 * The secrets a call needs (`ToolDefinition.secrets`): the operation's security alternatives this adapter can
 * satisfy, each as its schemes' names (a secret is named like its scheme, see auth.ts). None when the operation
 * needs no authentication, or allows an anonymous call (an empty alternative), or needs only schemes this adapter
 * does not offer (no secret would help).
 */
function secretsOf(
  security: readonly SecurityAlternative[],
  schemes: Record<string, SchemeDomain>,
): { secrets?: string[][] } {
  if (security.some((alternative) => alternative.length === 0)) return {};
  const offered = security.filter((alternative) => alternative.every(({ scheme }) => schemes[scheme] !== undefined));
  if (offered.length === 0) return {};
  return { secrets: offered.map((alternative) => [...new Set(alternative.map(({ scheme }) => scheme))]) };
}

function parameterSchema(
  parameter: OperationParameter,
  emitter: SchemaEmitter,
): { schema: JSONSchema; refs: Set<string> } {
  const { schema, refs } =
    parameter.schema === undefined
      ? { schema: {} as JSONSchema, refs: new Set<string>() }
      : emitter.root(parameter.schema, "request");
  const out: JSONSchema = { ...schema };
  if (parameter.description) out.description = parameter.description;
  if (parameter.deprecated) out.deprecated = true;
  if (parameter.examples.length > 0 && out.examples === undefined) {
    const examples = emitter.conforming(parameter.examples, out, "request");
    if (examples.length > 0) out.examples = examples;
  }
  return { schema: out, refs };
}

interface BodyInput {
  schema: JSONSchema;
  refs: Set<string>;
  binding: BodyBinding;
}

/**
 * The `body` input and how it is sent. Forms are split into fields when
 * their schema describes an object; otherwise nothing names the fields, so
 * a multipart body becomes one file part (`files.ts` input) and an
 * urlencoded body is taken as its encoded text: never silently dropped.
 */
function bodySchema(body: RequestBody, media: RequestBody["content"][number], emitter: SchemaEmitter): BodyInput {
  const kind = bodyKind(media.type);
  const fallback = `Request body, sent as ${media.type}.`;
  const binding: BodyBinding = { mediaType: media.type, encoding: media.encoding, files: [] };
  if (kind === "raw") {
    // A string schema (a pattern, a length) still constrains the text; anything else says nothing about bytes.
    const text = media.schema === undefined ? undefined : emitter.root(media.schema, "request");
    const stringSchema =
      text && text.schema.type === "string" && text.refs.size === 0 ? text.schema : { type: "string" };
    const { description: _own, ...constraints } = stringSchema as JsonRecord;
    const description = body.description ?? `${fallback} Pass text, or binary content as { base64 }.`;
    return {
      schema: { ...fileInputSchema(constraints as JSONSchema), description },
      refs: new Set(),
      binding,
    };
  }
  if (media.schema === undefined) {
    const schema: JSONSchema = kind === "text" ? { type: "string" } : {};
    return { schema: { ...schema, description: body.description ?? fallback }, refs: new Set(), binding };
  }
  const { schema, refs } = emitter.root(media.schema, "request");
  const description = body.description ?? (typeof schema.description === "string" ? schema.description : fallback);
  if ((kind === "multipart" || kind === "form") && !isObjectSchema(media.schema, emitter)) {
    if (kind === "multipart") {
      const note = `${fallback} Sent as one file part named "${WHOLE_BODY_PART}": pass text, or binary content as { base64, filename?, contentType? }.`;
      return {
        schema: {
          ...fileInputSchema(schema),
          description: `${description === fallback ? "" : `${description} `}${note}`,
        },
        refs: new Set(),
        binding: { ...binding, whole: "file" },
      };
    }
    const note = `${fallback} The document describes this body without field names, so pass the encoded form text (\`a=1&b=2\`); it is sent as given.`;
    return {
      schema: { type: "string", description: `${description === fallback ? "" : `${description} `}${note}` },
      refs: new Set(),
      binding: { ...binding, whole: "text" },
    };
  }
  if (kind !== "multipart") return { schema: { ...schema, description }, refs, binding };
  const files = fileProperties(media.schema, emitter);
  return { schema: withFileInputs({ ...schema, description }, files), refs, binding: { ...binding, files } };
}

/**
 * The fields of a form body that a secret provides (`secret-parameters.ts`),
 * made optional and bound to their scheme; `fieldsLeft` says whether the
 * body still has required fields of its own.
 */
function withCoveredFields(
  input: BodyInput,
  operation: Operation,
  schemes: Record<string, SchemeDomain>,
): { schema: JSONSchema; binding: BodyBinding; fieldsLeft: boolean } {
  const { schema, binding } = input;
  const kind = bodyKind(binding.mediaType);
  const properties = own(schema, "properties");
  if ((kind !== "form" && kind !== "multipart") || binding.whole || !isRecord(properties))
    return { schema, binding, fieldsLeft: true };
  const fields: Record<string, string> = {};
  const covered: JsonRecord = { ...properties };
  for (const [name, property] of entriesOf(properties)) {
    const scheme = coveringScheme({ name, in: "body" }, operation.security, schemes);
    if (!scheme || !isRecord(property)) continue;
    define(fields, name, scheme);
    const described = typeof property.description === "string" ? property.description : undefined;
    define(covered, name, { ...property, description: coveredDescription(described, scheme) });
  }
  if (Object.keys(fields).length === 0) return { schema, binding, fieldsLeft: true };
  const required = (ownArray(schema, "required") ?? []).filter(
    (name) => typeof name !== "string" || !Object.hasOwn(fields, name),
  );
  const { required: _required, ...rest } = schema as JsonRecord;
  return {
    schema: { ...rest, properties: covered, ...(required.length > 0 ? { required } : {}) } as JSONSchema,
    binding: { ...binding, secretFields: fields },
    fieldsLeft: required.length > 0,
  };
}

function typesOf(schema: unknown): string[] {
  const type = own(schema, "type");
  return Array.isArray(type) ? type.filter((item) => typeof item === "string") : typeof type === "string" ? [type] : [];
}

/** Whether a (raw) schema describes an object, so a form can send it field by field. Unknown shapes count as objects. */
function isObjectSchema(node: unknown, emitter: SchemaEmitter, depth = 0): boolean {
  const schema = emitter.resolve(node);
  if (!isRecord(schema) || depth > 20) return true;
  const types = typesOf(schema);
  if (types.length > 0) return types.includes("object");
  if (["properties", "additionalProperties", "patternProperties"].some((key) => Object.hasOwn(schema, key)))
    return true;
  const allOf = ownArray(schema, "allOf");
  if (allOf?.length) return allOf.some((member) => isObjectSchema(member, emitter, depth + 1));
  for (const key of ["anyOf", "oneOf"]) {
    const members = ownArray(schema, key);
    if (members?.length) return members.every((member) => isObjectSchema(member, emitter, depth + 1));
  }
  return !Object.hasOwn(schema, "items");
}

function isBinary(node: unknown, emitter: SchemaEmitter): boolean {
  const schema = emitter.resolve(node);
  if (own(schema, "type") === "file" || own(schema, "format") === "binary") return true;
  if (own(schema, "type") === "array") return isBinary(own(schema, "items"), emitter);
  return false;
}

/** Multipart properties whose schema is binary (or an array of binary items), including those of `allOf` members. */
function fileProperties(schema: unknown, emitter: SchemaEmitter, depth = 0): string[] {
  const resolved = emitter.resolve(schema);
  const own_ = entriesOf(own(resolved, "properties"))
    .filter(([, property]) => isBinary(property, emitter))
    .map(([name]) => name);
  const members = depth < 10 ? (ownArray(resolved, "allOf") ?? []) : [];
  return [...new Set([...own_, ...members.flatMap((member) => fileProperties(member, emitter, depth + 1))])];
}

/**
 * File properties written out in the body's input schema (its own
 * `properties` and those of inline `allOf` members) also accept
 * `{ base64, filename?, contentType? }`; one inside a shared `$defs` entry
 * stays a string (its text is sent).
 */
function withFileInputs(schema: JSONSchema, files: string[]): JSONSchema {
  if (files.length === 0) return schema;
  const out: JsonRecord = { ...schema };
  if (isRecord(out.properties)) {
    const properties: JsonRecord = { ...out.properties };
    for (const name of files) {
      const property = own(properties, name);
      if (!isRecord(property)) continue;
      const items = own(property, "items");
      define(
        properties,
        name,
        own(property, "type") === "array" && isRecord(items)
          ? { ...property, items: fileInputSchema(items as JSONSchema) }
          : fileInputSchema(property as JSONSchema),
      );
    }
    out.properties = properties;
  }
  if (Array.isArray(out.allOf)) {
    out.allOf = out.allOf.map((member) => (isRecord(member) ? withFileInputs(member as JSONSchema, files) : member));
  }
  return out as JSONSchema;
}

function outputSchema(operation: Operation, emitter: SchemaEmitter): JSONSchema {
  const success = operation.success;
  const media = success ? pickResponseMediaType(success.content) : undefined;
  if (!success || !media) return {};
  const fallback = success.description ?? `Response ${success.status}.`;
  if (!isJsonType(media.type)) {
    return { $schema: DRAFT_07, type: "string", description: `${fallback} Returned as text (${media.type}).` };
  }
  if (media.schema === undefined) return { $schema: DRAFT_07, description: fallback };
  const { schema, refs } = emitter.root(media.schema, "response");
  const defs = emitter.defs(refs, "response");
  const out: JsonRecord = { $schema: DRAFT_07, ...schema };
  if (typeof out.description !== "string") out.description = fallback;
  if (Object.keys(defs).length > 0) out.$defs = defs;
  return out;
}
