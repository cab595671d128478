import type { JSONSchema, ToolDefinition } from "@cyrnel/sdk";
import { type BodyBinding, DOMAIN_FORMAT, type ParameterBinding, type ToolDomain } from "./domain.js";
import { acceptHeader, bodyKind, isJsonType, pickRequestMediaType, pickResponseMediaType } from "./media-types.js";
import type { Operation, OperationParameter, RequestBody } from "./operations.js";
import { BODY_KEY, parameterKeys } from "./parameters.js";
import { define, entriesOf, type JsonRecord, own } from "./records.js";
import { DRAFT_07, type SchemaEmitter } from "./schemas.js";

/**
 * Stage 4: one normalised operation → one tool. `inputSchema` is an object
 * with a property per parameter (see `parameters.ts` for the names) and
 * `body` for the request body; `outputSchema` describes the success
 * response's body (`{}` when the document declares none).
 */

export function buildTool(operation: Operation, id: string, emitter: SchemaEmitter): ToolDefinition {
  const label = `${operation.method.toUpperCase()} ${operation.path}`;
  const bodyMedia = operation.body ? pickRequestMediaType(operation.body.content) : undefined;
  const keys = parameterKeys(operation.parameters, bodyMedia !== undefined);

  const properties: Record<string, JSONSchema> = {};
  const required: string[] = [];
  const refs = new Set<string>();
  operation.parameters.forEach((parameter, index) => {
    const key = keys[index]!;
    const { schema, refs: used } = parameterSchema(parameter, emitter);
    for (const ref of used) refs.add(ref);
    define(properties, key, schema);
    if (parameter.required) required.push(key);
  });
  let body: BodyBinding | null = null;
  if (operation.body && bodyMedia) {
    const { schema, refs: used } = bodySchema(operation.body, bodyMedia, emitter);
    for (const ref of used) refs.add(ref);
    define(properties, BODY_KEY, schema);
    if (operation.body.required) required.push(BODY_KEY);
    body = {
      mediaType: bodyMedia.type,
      encoding: bodyMedia.encoding,
      files: bodyKind(bodyMedia.type) === "multipart" ? fileProperties(bodyMedia.schema, emitter) : [],
    };
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
  };
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
  if (parameter.examples.length > 0 && out.examples === undefined) out.examples = parameter.examples;
  return { schema: out, refs };
}

function bodySchema(
  body: RequestBody,
  media: RequestBody["content"][number],
  emitter: SchemaEmitter,
): { schema: JSONSchema; refs: Set<string> } {
  const kind = bodyKind(media.type);
  const fallback = `Request body, sent as ${media.type}.`;
  if (kind === "raw") {
    return {
      schema: { type: "string", description: body.description ?? `${fallback} Pass the body as text.` },
      refs: new Set(),
    };
  }
  if (media.schema === undefined) {
    const schema: JSONSchema = kind === "text" ? { type: "string" } : {};
    return { schema: { ...schema, description: body.description ?? fallback }, refs: new Set() };
  }
  const { schema, refs } = emitter.root(media.schema, "request");
  const description = body.description ?? (typeof schema.description === "string" ? schema.description : fallback);
  return { schema: { ...schema, description }, refs };
}

function isBinary(node: unknown, emitter: SchemaEmitter): boolean {
  const schema = emitter.resolve(node);
  if (own(schema, "type") === "file" || own(schema, "format") === "binary") return true;
  if (own(schema, "type") === "array") return isBinary(own(schema, "items"), emitter);
  return false;
}

/** Top-level multipart properties whose schema is binary (or an array of binary items). */
function fileProperties(schema: unknown, emitter: SchemaEmitter): string[] {
  const resolved = emitter.resolve(schema);
  return entriesOf(own(resolved, "properties"))
    .filter(([, property]) => isBinary(property, emitter))
    .map(([name]) => name);
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
