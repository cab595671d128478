// @ts-check
/**
 * One tool call → one HTTP request. Path parameters fill `{name}` segments;
 * the other parameters go to the query string (GET, DELETE) or to a JSON
 * body (POST, PUT, PATCH). Errors name the method and URL, never the
 * credentials.
 */

/** @typedef {import("./descriptor.js").EndpointDomain} EndpointDomain */
/** @typedef {import("./descriptor.js").ServiceDomain} ServiceDomain */
/** @typedef {{ baseUrl: string, timeoutMs: number, headers: Record<string, string> }} ServiceConfig */

/** An error a caller can inspect: the host reports `status` and `body` of a failed call. */
class HttpError extends Error {
  /**
   * @param {string} message
   * @param {number} status
   * @param {unknown} body
   */
  constructor(message, status, body) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.body = body;
  }
}

/**
 * @param {{ config: ServiceConfig, auth: ServiceDomain["auth"], token: string | undefined }} service
 * @param {EndpointDomain} endpoint
 * @param {Record<string, unknown>} parameters
 * @returns {Promise<{ status: number, body: unknown }>}
 */
export async function callEndpoint(service, endpoint, parameters) {
  const { method, pathParams } = endpoint;
  let path = endpoint.path;
  for (const name of pathParams) {
    const value = parameters[name];
    if (value === undefined || value === null) throw new Error(`missing path parameter "${name}"`);
    path = path.replaceAll(`{${name}}`, encodeURIComponent(String(value)));
  }
  const url = new URL(service.config.baseUrl.replace(/\/+$/, "") + path);
  const rest = Object.entries(parameters).filter(([name]) => !pathParams.includes(name));
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json", ...service.config.headers };
  if (service.auth !== null && service.token !== undefined) {
    if (service.auth.type === "bearer") headers.authorization = `Bearer ${service.token}`;
    else headers[service.auth.name] = service.token;
  }
  /** @type {string | undefined} */
  let body;
  if (method === "GET" || method === "DELETE") {
    for (const [name, value] of rest) {
      for (const item of Array.isArray(value) ? value : [value]) {
        url.searchParams.append(name, typeof item === "object" && item !== null ? JSON.stringify(item) : String(item));
      }
    }
  } else if (rest.length > 0) {
    body = JSON.stringify(Object.fromEntries(rest));
    headers["content-type"] = "application/json";
  }

  const where = `${method} ${url.origin}${url.pathname}`;
  /** @type {Response} */
  let response;
  try {
    response = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(service.config.timeoutMs) });
  } catch (error) {
    const cause = /** @type {{ name?: string, cause?: { code?: string, message?: string }, message?: string }} */ (
      error
    );
    const reason =
      cause.name === "TimeoutError"
        ? `timed out after ${service.config.timeoutMs} ms`
        : (cause.cause?.code ?? cause.cause?.message ?? cause.message);
    throw new Error(`${where} failed: ${reason}`);
  }
  const text = await response.text();
  const parsed = parseBody(text, response.headers.get("content-type"));
  if (!response.ok) throw new HttpError(`${where} answered ${response.status}`, response.status, parsed);
  return { status: response.status, body: parsed };
}

/**
 * @param {string} text
 * @param {string | null} contentType
 * @returns {unknown}
 */
function parseBody(text, contentType) {
  if (text === "") return null;
  if (contentType?.includes("json")) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
