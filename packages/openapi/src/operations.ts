import type { ParsedDocument } from "./parse.js";
import { followRefs, pointerOf } from "./pointer.js";
import { entriesOf, isRecord, type JsonRecord, own, ownArray, ownRecord, ownString, recordFrom } from "./records.js";

/**
 * Stage 2 (see the README's table): a parsed document → a version-independent list of operations.
 * Swagger 2.0 is normalised to the OpenAPI 3 model here (body and formData
 * parameters become a request body, `collectionFormat` becomes
 * style/explode, schemes/host/basePath become a server), so later stages
 * see one shape. Schemas stay raw (with their `$ref`s): `schemas.ts`
 * translates them.
 */

/** Methods in the order the OpenAPI path item object lists them; operations are emitted in this order per path. */
const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

const PARAMETER_LOCATIONS = ["path", "query", "header", "cookie"] as const;
export type ParameterLocation = (typeof PARAMETER_LOCATIONS)[number];

/**
 * Headers that frame the message or the connection. The HTTP client
 * computes them for the bytes actually sent; taken from a parameter or the
 * config, a wrong `Content-Length` hangs the call or cuts the body.
 */
export const FRAMING_HEADERS = new Set([
  "content-length",
  "transfer-encoding",
  "host",
  "connection",
  "keep-alive",
  "proxy-connection",
  "upgrade",
  "te",
  "trailer",
  "expect",
]);

/**
 * Header parameters that never become tool inputs: `Accept`, `Content-Type`
 * and `Authorization`, which the OpenAPI spec says to ignore (content types
 * and security drive them), and the framing headers.
 */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization", ...FRAMING_HEADERS]);

export interface OperationParameter {
  name: string;
  in: ParameterLocation;
  required: boolean;
  description?: string;
  deprecated: boolean;
  /** Raw schema node (may be a `$ref` or, in 3.1, a boolean). */
  schema: unknown;
  style: string;
  explode: boolean;
  allowReserved: boolean;
  /** Set for `content`-based parameters: the value is serialised as this media type. */
  contentType?: string;
  /** Example values (from `example` and `examples`). */
  examples: unknown[];
}

export interface Encoding {
  contentType?: string;
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
}

export interface MediaType {
  type: string;
  schema?: unknown;
  encoding: Record<string, Encoding>;
}

export interface RequestBody {
  description?: string;
  required: boolean;
  /** In document order. */
  content: MediaType[];
}

export interface Response {
  status: string;
  description?: string;
  content: MediaType[];
}

export interface ServerVariable {
  name: string;
  default: string;
  enum?: string[];
  description?: string;
}

export interface Server {
  url: string;
  variables: ServerVariable[];
}

/** One alternative of a security requirement: all of its schemes apply together. */
export type SecurityAlternative = { scheme: string; scopes: string[] }[];

export interface Operation {
  method: HttpMethod;
  /** The path template as written (may carry a `#fragment` or `?query` that some documents use to keep keys unique). */
  path: string;
  operationId?: string;
  summary?: string;
  description?: string;
  deprecated: boolean;
  parameters: OperationParameter[];
  body?: RequestBody;
  /** The response whose body `invoke` returns: the lowest 2xx, else `2XX`, else `default`. */
  success?: Response;
  /** Effective requirement: the operation's own, else the document's; `[]` means no authentication. */
  security: SecurityAlternative[];
  /** Operation- or path-level servers, overriding the document's; `[]` when there are none. */
  servers: Server[];
}

export interface ApiDescription {
  title: string;
  description: string;
  servers: Server[];
  /** Security schemes by name, in the OpenAPI 3 shape (Swagger 2 definitions are converted). */
  securitySchemes: Record<string, JsonRecord>;
  operations: Operation[];
}

/**
 * Follow `$ref` chains of non-schema objects (parameters, responses, …) to
 * the object they name (`parseDocument` has checked that every `$ref` is local).
 */
function resolveObject(document: JsonRecord, node: unknown, where: string): unknown {
  const { value, circular } = followRefs(document, node);
  if (circular !== undefined) {
    throw new Error(
      `Invalid OpenAPI document: $ref "${circular}" at ${where} cannot be resolved (circular or external)`,
    );
  }
  return value;
}

export function describeApi(parsed: ParsedDocument): ApiDescription {
  const { document, version } = parsed;
  const info = ownRecord(document, "info");
  const title = ownString(info, "title")?.trim() || "OpenAPI service";
  const description = ownString(info, "description")?.trim() || ownString(info, "summary")?.trim() || title;
  const swagger2 = version === "2.0";
  return {
    title,
    description,
    servers: swagger2 ? swaggerServers(document) : servers(document, own(document, "servers")),
    securitySchemes: swagger2 ? swaggerSecuritySchemes(document) : securitySchemes(document),
    operations: collectOperations(document, swagger2),
  };
}

function collectOperations(document: JsonRecord, swagger2: boolean): Operation[] {
  const operations: Operation[] = [];
  const globalSecurity = securityRequirements(own(document, "security")) ?? [];
  for (const [path, rawItem] of entriesOf(own(document, "paths"))) {
    if (!path.startsWith("/")) continue;
    const itemPointer = pointerOf(["paths", path]);
    const item = resolveObject(document, rawItem, itemPointer);
    if (!isRecord(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = ownRecord(item, method);
      if (!operation) continue;
      const context: OperationContext = {
        document,
        item,
        operation,
        method,
        path,
        pointer: pointerOf(["paths", path, method]),
        globalSecurity,
      };
      operations.push(swagger2 ? swaggerOperation(context) : openApiOperation(context));
    }
  }
  return operations;
}

interface OperationContext {
  document: JsonRecord;
  item: JsonRecord;
  operation: JsonRecord;
  method: HttpMethod;
  path: string;
  pointer: string;
  globalSecurity: SecurityAlternative[];
}

function baseOperation(context: OperationContext): Omit<Operation, "parameters" | "body" | "success" | "servers"> {
  const { operation } = context;
  const text = (key: string) => ownString(operation, key)?.trim() || undefined;
  return {
    method: context.method,
    path: context.path,
    ...optional("operationId", text("operationId")),
    ...optional("summary", text("summary")),
    ...optional("description", text("description")),
    deprecated: own(operation, "deprecated") === true,
    security: securityRequirements(own(operation, "security")) ?? context.globalSecurity,
  };
}

/** Path-level and operation-level parameters, resolved; the operation's win on the same name and location. */
function mergedParameters(context: OperationContext): { raw: JsonRecord; pointer: string }[] {
  const { document, item, operation, path, pointer } = context;
  const resolveAll = (list: unknown[] | undefined, base: string) =>
    (list ?? []).flatMap((entry, index) => {
      const where = `${base}/parameters/${index}`;
      const raw = resolveObject(document, entry, where);
      return isRecord(raw) ? [{ raw, pointer: where }] : [];
    });
  const fromOperation = resolveAll(ownArray(operation, "parameters"), pointer);
  const fromPath = resolveAll(ownArray(item, "parameters"), pointerOf(["paths", path]));
  const key = (raw: JsonRecord) => `${ownString(raw, "in")}\u0000${ownString(raw, "name")}`;
  const overridden = new Set(fromOperation.map(({ raw }) => key(raw)));
  return [...fromPath.filter(({ raw }) => !overridden.has(key(raw))), ...fromOperation];
}

function isLocation(value: unknown): value is ParameterLocation {
  return (PARAMETER_LOCATIONS as readonly unknown[]).includes(value);
}

function keepParameter(name: string, location: ParameterLocation): boolean {
  return name !== "" && !(location === "header" && IGNORED_HEADERS.has(name.toLowerCase()));
}

function exampleValues(document: JsonRecord, node: JsonRecord, where: string): unknown[] {
  const values: unknown[] = [];
  if (Object.hasOwn(node, "example")) values.push(node.example);
  for (const [, example] of entriesOf(own(node, "examples"))) {
    const resolved = resolveObject(document, example, where);
    if (isRecord(resolved) && Object.hasOwn(resolved, "value")) values.push(resolved.value);
  }
  return values;
}

// ---------------------------------------------------------------------------
// OpenAPI 3.0 / 3.1

function openApiOperation(context: OperationContext): Operation {
  const { document, operation, item, pointer } = context;
  const parameters: OperationParameter[] = [];
  for (const { raw, pointer: where } of mergedParameters(context)) {
    const name = ownString(raw, "name");
    const location = own(raw, "in");
    if (name === undefined || !isLocation(location) || !keepParameter(name, location)) continue;
    const style = ownString(raw, "style") ?? (location === "query" || location === "cookie" ? "form" : "simple");
    const explode = typeof raw.explode === "boolean" ? raw.explode : style === "form";
    const content = mediaTypes(document, own(raw, "content"), where)[0];
    parameters.push({
      name,
      in: location,
      required: location === "path" || own(raw, "required") === true,
      ...describe(raw),
      deprecated: own(raw, "deprecated") === true,
      schema: content ? content.schema : own(raw, "schema"),
      style,
      explode,
      allowReserved: own(raw, "allowReserved") === true,
      ...(content ? { contentType: content.type } : {}),
      examples: exampleValues(document, raw, where),
    });
  }
  const operationServers = servers(document, own(operation, "servers"));
  return {
    ...baseOperation(context),
    parameters: withImplicitPathParameters(context.path, parameters),
    ...optional("body", requestBody(document, own(operation, "requestBody"), `${pointer}/requestBody`)),
    ...optional("success", successResponse(document, own(operation, "responses"), pointer, false, [])),
    servers: operationServers.length > 0 ? operationServers : servers(document, own(item, "servers")),
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function describe(node: unknown): { description?: string } {
  const description = ownString(node, "description")?.trim();
  return description ? { description } : {};
}

function mediaTypes(document: JsonRecord, content: unknown, where: string): MediaType[] {
  return entriesOf(content).map(([type, raw]) => {
    const encoding = entriesOf(own(raw, "encoding")).map(([property, value]) => {
      const resolved = resolveObject(document, value, where);
      const entry: Encoding = {};
      const contentType = ownString(resolved, "contentType");
      const style = ownString(resolved, "style");
      const explode = own(resolved, "explode");
      if (contentType) entry.contentType = contentType;
      if (style) entry.style = style;
      if (typeof explode === "boolean") entry.explode = explode;
      if (own(resolved, "allowReserved") === true) entry.allowReserved = true;
      return [property, entry] as const;
    });
    const schema = own(raw, "schema");
    return { type, ...(schema === undefined ? {} : { schema }), encoding: recordFrom(encoding) };
  });
}

function requestBody(document: JsonRecord, raw: unknown, where: string): RequestBody | undefined {
  const body = resolveObject(document, raw, where);
  if (!isRecord(body)) return undefined;
  const content = mediaTypes(document, own(body, "content"), where);
  if (content.length === 0) return undefined;
  return { ...describe(body), required: own(body, "required") === true, content };
}

/** Lowest numeric 2xx status, then a `2XX` range, then `default`. */
export function pickSuccessStatus(statuses: readonly string[]): string | undefined {
  const exact = statuses.filter((status) => /^2\d\d$/.test(status)).sort();
  return exact[0] ?? statuses.find((status) => /^2xx$/i.test(status)) ?? statuses.find((s) => s === "default");
}

function successResponse(
  document: JsonRecord,
  responses: unknown,
  pointer: string,
  swagger2: boolean,
  produces: string[],
): Response | undefined {
  const status = pickSuccessStatus(entriesOf(responses).map(([key]) => key));
  if (status === undefined) return undefined;
  const where = `${pointer}/responses/${status}`;
  const response = resolveObject(document, own(responses, status), where);
  if (!isRecord(response)) return undefined;
  if (!swagger2)
    return { status, ...describe(response), content: mediaTypes(document, own(response, "content"), where) };
  const schema = own(response, "schema");
  const content = schema === undefined ? [] : produces.map((type): MediaType => ({ type, schema, encoding: {} }));
  return { status, ...describe(response), content };
}

function servers(document: JsonRecord, raw: unknown): Server[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((entry, index) => {
    const server = resolveObject(document, entry, `servers/${index}`);
    const url = ownString(server, "url");
    if (url === undefined) return [];
    const variables = entriesOf(own(server, "variables")).flatMap(([name, variable]): ServerVariable[] => {
      const fallback = own(variable, "default");
      if (typeof fallback !== "string" && typeof fallback !== "number") return [];
      const values = ownArray(variable, "enum")?.filter(
        (value) => typeof value === "string" || typeof value === "number",
      );
      return [
        {
          name,
          default: String(fallback),
          ...(values && values.length > 0 ? { enum: values.map(String) } : {}),
          ...describe(variable),
        },
      ];
    });
    return [{ url, variables }];
  });
}

function securitySchemes(document: JsonRecord): Record<string, JsonRecord> {
  const components = ownRecord(document, "components");
  return recordFrom(
    entriesOf(own(components, "securitySchemes")).flatMap(([name, raw]) => {
      const scheme = resolveObject(document, raw, pointerOf(["components", "securitySchemes", name]));
      return isRecord(scheme) ? [[name, scheme] as const] : [];
    }),
  );
}

/** `undefined` when the node is absent (inherit), `[]` when it is an explicitly empty list (no authentication). */
function securityRequirements(raw: unknown): SecurityAlternative[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  return raw.filter(isRecord).map((alternative) =>
    Object.entries(alternative).map(([scheme, scopes]) => ({
      scheme,
      scopes: Array.isArray(scopes) ? scopes.filter((scope): scope is string => typeof scope === "string") : [],
    })),
  );
}

/** `{name}` placeholders of a path template, in order. */
function pathPlaceholders(path: string): string[] {
  return [...stripPathSuffix(path).matchAll(/\{([^{}/]+)\}/g)].map((match) => match[1]!);
}

/** The path without the `#fragment` or `?query` some documents append to keep keys unique. */
export function stripPathSuffix(path: string): string {
  return path.replace(/[#?].*$/s, "");
}

/** Placeholders the document forgot to declare still need a value: add them as required string path parameters. */
function withImplicitPathParameters(path: string, parameters: OperationParameter[]): OperationParameter[] {
  const declared = new Set(parameters.filter((p) => p.in === "path").map((p) => p.name));
  const missing = [...new Set(pathPlaceholders(path))].filter((name) => !declared.has(name));
  return [
    ...parameters,
    ...missing.map(
      (name): OperationParameter => ({
        name,
        in: "path",
        required: true,
        description: `Path parameter {${name}} (not declared in the document).`,
        deprecated: false,
        schema: { type: "string" },
        style: "simple",
        explode: false,
        allowReserved: false,
        examples: [],
      }),
    ),
  ];
}

// ---------------------------------------------------------------------------
// Swagger 2.0

/** Parameter keywords that are JSON-schema-like in Swagger 2 (the rest describe the parameter itself). */
const SWAGGER_SCHEMA_KEYS = [
  "type",
  "format",
  "items",
  "default",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "enum",
  "multipleOf",
];

function swaggerParameterSchema(raw: JsonRecord): JsonRecord {
  return recordFrom(
    SWAGGER_SCHEMA_KEYS.filter((key) => Object.hasOwn(raw, key)).map((key) => [key, raw[key]] as const),
  );
}

/** `collectionFormat` → OpenAPI 3 style and explode. */
export function collectionStyle(
  collectionFormat: string | undefined,
  location: ParameterLocation | "formData",
): { style: string; explode: boolean } {
  switch (collectionFormat) {
    case "multi":
      return { style: "form", explode: true };
    case "ssv":
      return { style: "spaceDelimited", explode: false };
    case "pipes":
      return { style: "pipeDelimited", explode: false };
    case "tsv":
      return { style: "tabDelimited", explode: false };
    default:
      return { style: location === "path" || location === "header" ? "simple" : "form", explode: false };
  }
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : undefined;
}

function swaggerOperation(context: OperationContext): Operation {
  const { document, operation, pointer } = context;
  const consumes = stringList(own(operation, "consumes")) ?? stringList(own(document, "consumes")) ?? [];
  const produces = stringList(own(operation, "produces")) ?? stringList(own(document, "produces")) ?? [];
  const parameters: OperationParameter[] = [];
  let body: RequestBody | undefined;
  const form: { name: string; raw: JsonRecord }[] = [];

  for (const { raw } of mergedParameters(context)) {
    const name = ownString(raw, "name");
    const location = own(raw, "in");
    if (location === "body") {
      body = {
        ...describe(raw),
        required: own(raw, "required") === true,
        content: (consumes.length > 0 ? consumes : ["application/json"]).map((type) => ({
          type,
          schema: own(raw, "schema") ?? {},
          encoding: {},
        })),
      };
      continue;
    }
    if (location === "formData" && name) {
      form.push({ name, raw });
      continue;
    }
    if (name === undefined || !isLocation(location) || !keepParameter(name, location)) continue;
    const { style, explode } = collectionStyle(ownString(raw, "collectionFormat"), location);
    parameters.push({
      name,
      in: location,
      required: location === "path" || own(raw, "required") === true,
      ...describe(raw),
      deprecated: false,
      schema: swaggerParameterSchema(raw),
      style,
      explode,
      allowReserved: false,
      examples: Object.hasOwn(raw, "x-example") ? [raw["x-example"]] : [],
    });
  }
  if (form.length > 0) body = swaggerFormBody(form, consumes);

  return {
    ...baseOperation(context),
    parameters: withImplicitPathParameters(context.path, parameters),
    ...optional("body", body),
    ...optional(
      "success",
      successResponse(
        document,
        own(operation, "responses"),
        pointer,
        true,
        produces.length > 0 ? produces : ["application/json"],
      ),
    ),
    servers: [],
  };
}

/** Swagger 2 `formData` parameters → one object body, sent as multipart or urlencoded. */
function swaggerFormBody(form: { name: string; raw: JsonRecord }[], consumes: string[]): RequestBody {
  const hasFile = form.some(({ raw }) => own(raw, "type") === "file");
  const formTypes = consumes.filter((type) => /^(multipart\/form-data|application\/x-www-form-urlencoded)/i.test(type));
  const types =
    formTypes.length > 0 ? formTypes : [hasFile ? "multipart/form-data" : "application/x-www-form-urlencoded"];
  const properties = recordFrom(
    form.map(({ name, raw }) => {
      const schema = swaggerParameterSchema(raw);
      const description = ownString(raw, "description");
      return [name, description ? { ...schema, description } : schema] as const;
    }),
  );
  const required = form.filter(({ raw }) => own(raw, "required") === true).map(({ name }) => name);
  const encoding = recordFrom(
    form.flatMap(({ name, raw }) => {
      if (own(raw, "type") !== "array") return [];
      const { style, explode } = collectionStyle(ownString(raw, "collectionFormat"), "formData");
      return [[name, { style, explode }] as const];
    }),
  );
  const schema = { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
  return {
    required: required.length > 0,
    content: types.map((type) => ({ type, schema, encoding })),
  };
}

function swaggerServers(document: JsonRecord): Server[] {
  const schemes = stringList(own(document, "schemes")) ?? [];
  const host = ownString(document, "host");
  const basePath = ownString(document, "basePath") ?? "";
  if (!host) return basePath ? [{ url: basePath, variables: [] }] : [];
  const scheme = schemes.includes("https") ? "https" : (schemes[0] ?? "https");
  return [{ url: `${scheme}://${host}${basePath}`, variables: [] }];
}

/** Swagger 2 oauth2 `flow` names → OpenAPI 3 flow names. */
const SWAGGER_FLOWS = new Map([
  ["application", "clientCredentials"],
  ["accessCode", "authorizationCode"],
  ["implicit", "implicit"],
  ["password", "password"],
]);

function swaggerSecuritySchemes(document: JsonRecord): Record<string, JsonRecord> {
  return recordFrom(
    entriesOf(own(document, "securityDefinitions")).flatMap(([name, raw]): [string, JsonRecord][] => {
      if (!isRecord(raw)) return [];
      const description = ownString(raw, "description");
      const common = description ? { description } : {};
      switch (own(raw, "type")) {
        case "basic":
          return [[name, { type: "http", scheme: "basic", ...common }]];
        case "apiKey":
          return [[name, { type: "apiKey", name: own(raw, "name"), in: own(raw, "in"), ...common }]];
        case "oauth2": {
          const flow = SWAGGER_FLOWS.get(ownString(raw, "flow") ?? "");
          const details = {
            ...(ownString(raw, "tokenUrl") ? { tokenUrl: raw.tokenUrl } : {}),
            ...(ownString(raw, "authorizationUrl") ? { authorizationUrl: raw.authorizationUrl } : {}),
            scopes: ownRecord(raw, "scopes") ?? {},
          };
          return [[name, { type: "oauth2", flows: flow ? recordFrom([[flow, details]]) : {}, ...common }]];
        }
        default:
          return [];
      }
    }),
  );
}
