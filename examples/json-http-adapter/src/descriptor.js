// @ts-check
/**
 * The descriptor format (a JSON document) → a cyrnel ServiceDefinition.
 * Pure: the same text always gives the same definition.
 *
 * {
 *   "name": "Demo weather", "description": "...",
 *   "baseUrl": "http://127.0.0.1:4010",
 *   "auth": { "type": "bearer" } | { "type": "header", "name": "x-api-key" },   (optional)
 *   "endpoints": [
 *     { "id": "getForecast", "method": "GET", "path": "/forecast/{city}",
 *       "description": "...", "input": { JSON Schema of the parameters }, "output": { JSON Schema of the body } }
 *   ]
 * }
 *
 * Since 2.0.0 a tool's result is `{ status, body }` and the 1.x shorthand
 * `"route": "GET /path"` is gone (services using it become stale after the
 * module update; rewrite them with `method` and `path`).
 */

/** @typedef {import("@cyrnel/sdk").ServiceDefinition} ServiceDefinition */
/** @typedef {import("@cyrnel/sdk").ToolDefinition} ToolDefinition */
/** @typedef {import("@cyrnel/sdk").JSONSchema} JSONSchema */

/**
 * What the adapter keeps per tool (ToolDefinition.adapterDomain).
 * @typedef {{ method: string, path: string, pathParams: string[] }} EndpointDomain
 */

/**
 * What the adapter keeps per service (ServiceDefinition.adapterDomain).
 * @typedef {{ auth: { type: "bearer" } | { type: "header", name: string } | null }} ServiceDomain
 */

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * @param {string} text
 * @returns {ServiceDefinition}
 */
export function parseDescriptor(text) {
  /** @type {unknown} */
  let raw;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`descriptor is not valid JSON: ${/** @type {Error} */ (error).message}`);
  }
  const doc = object(raw, "descriptor");
  const name = string(doc.name, "name");
  const baseUrl = string(doc.baseUrl, "baseUrl");
  if (!/^https?:\/\//.test(baseUrl)) throw new Error(`"baseUrl" must be an http(s) URL, got "${baseUrl}"`);
  const auth = parseAuth(doc.auth);
  if (!Array.isArray(doc.endpoints) || doc.endpoints.length === 0) {
    throw new Error(`"endpoints" must be a non-empty array`);
  }
  const seen = new Set();
  const tools = doc.endpoints.map((entry, index) => {
    const tool = parseEndpoint(entry, `endpoints[${index}]`);
    if (seen.has(tool.id)) throw new Error(`endpoints[${index}].id "${tool.id}" is used twice`);
    seen.add(tool.id);
    return tool;
  });

  /** @type {JSONSchema} */
  const configSchema = {
    type: "object",
    properties: {
      baseUrl: { type: "string", default: baseUrl, description: "Where the API lives" },
      timeoutMs: { type: "integer", minimum: 1, default: 10000, description: "Timeout of one request" },
      headers: {
        type: "object",
        additionalProperties: { type: "string" },
        default: {},
        description: "Extra headers sent with every request",
      },
    },
    additionalProperties: false,
  };
  /** @type {JSONSchema} */
  const secretsSchema =
    auth === null
      ? { type: "object", properties: {}, additionalProperties: false }
      : {
          type: "object",
          properties: {
            token: {
              type: "string",
              minLength: 1,
              description: auth.type === "bearer" ? "Bearer token" : `Value of the ${auth.name} header`,
            },
          },
          required: ["token"],
          additionalProperties: false,
        };
  /** @type {ServiceDomain} */
  const adapterDomain = { auth };
  return {
    name,
    description: optionalString(doc.description, "description"),
    configSchema,
    secretsSchema,
    adapterDomain,
    tools,
  };
}

/**
 * @param {unknown} value
 * @param {string} at
 * @returns {ToolDefinition}
 */
function parseEndpoint(value, at) {
  const endpoint = object(value, at);
  if (endpoint.route !== undefined) {
    throw new Error(
      `${at}.route is no longer supported (removed in json-http 2.0.0); write "method" and "path" instead`,
    );
  }
  const id = string(endpoint.id, `${at}.id`);
  if (!IDENTIFIER.test(id)) throw new Error(`${at}.id "${id}" must be a valid identifier`);
  const method = string(endpoint.method, `${at}.method`).toUpperCase();
  if (!METHODS.includes(method)) throw new Error(`${at}.method must be one of ${METHODS.join(", ")}, got "${method}"`);
  const path = string(endpoint.path, `${at}.path`);
  if (!path.startsWith("/")) throw new Error(`${at}.path must start with "/", got "${path}"`);
  const pathParams = [...path.matchAll(/\{([^}/]+)\}/g)].map((match) => /** @type {string} */ (match[1]));
  const input = endpoint.input === undefined ? undefined : object(endpoint.input, `${at}.input`);
  const output = endpoint.output === undefined ? {} : object(endpoint.output, `${at}.output`);
  /** @type {EndpointDomain} */
  const adapterDomain = { method, path, pathParams };
  return {
    id,
    name: optionalString(endpoint.name, `${at}.name`) || id,
    description: optionalString(endpoint.description, `${at}.description`) || `${method} ${path}`,
    inputSchema: withPathParams(input, pathParams),
    outputSchema: {
      type: "object",
      properties: { status: { type: "integer", description: "HTTP status of the response" }, body: output },
      required: ["status", "body"],
    },
    adapterDomain,
  };
}

/**
 * The declared input schema, with every path parameter present and required
 * (as strings, unless the descriptor typed it).
 * @param {Record<string, unknown> | undefined} input
 * @param {string[]} pathParams
 * @returns {JSONSchema}
 */
function withPathParams(input, pathParams) {
  /** @type {Record<string, unknown>} */
  const schema = { type: "object", ...input };
  const properties = { .../** @type {Record<string, unknown>} */ (schema.properties ?? {}) };
  for (const param of pathParams) properties[param] ??= { type: "string" };
  const required = [...new Set([.../** @type {string[]} */ (schema.required ?? []), ...pathParams])];
  return { ...schema, properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * @param {unknown} value
 * @returns {ServiceDomain["auth"]}
 */
function parseAuth(value) {
  if (value === undefined || value === null) return null;
  const auth = object(value, "auth");
  if (auth.type === "bearer") return { type: "bearer" };
  if (auth.type === "header") return { type: "header", name: string(auth.name, "auth.name") };
  throw new Error(`"auth.type" must be "bearer" or "header"`);
}

/**
 * @param {unknown} value
 * @param {string} at
 * @returns {Record<string, unknown>}
 */
function object(value, at) {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`"${at}" must be an object`);
  return /** @type {Record<string, unknown>} */ (value);
}

/**
 * @param {unknown} value
 * @param {string} at
 * @returns {string}
 */
function string(value, at) {
  if (typeof value !== "string" || value === "") throw new Error(`"${at}" must be a non-empty string`);
  return value;
}

/**
 * @param {unknown} value
 * @param {string} at
 * @returns {string}
 */
function optionalString(value, at) {
  if (value === undefined) return "";
  if (typeof value !== "string") throw new Error(`"${at}" must be a string`);
  return value;
}
