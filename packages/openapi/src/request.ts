import type { Credentials } from "./auth.js";
import { type BodyBytes, encodeBody, formPairs } from "./body.js";
import type { ParameterBinding, ToolDomain } from "./domain.js";
import { bodyKind, isJsonType } from "./media-types.js";
import { BODY_KEY } from "./parameters.js";
import { own } from "./records.js";
import { serializeCookie, serializeHeader, serializePath, serializeQuery } from "./styles.js";

/**
 * Stage 6 (see the README's table): tool routing + base URL + parameters → the HTTP request, before
 * credentials. Pure; `withCredentials` then adds the security scheme's
 * headers, query parameters and cookies. The URL built here carries no
 * credentials, so it is the one error messages show.
 *
 * A GET or HEAD operation with an urlencoded request body (Stripe's list
 * endpoints) sends the body's fields as query parameters: that is the
 * same encoding, and the form convention for these methods. Bodies of
 * other media types on GET/HEAD (AWS's JSON bodies) are sent as a body.
 */

export interface PreparedRequest {
  method: string;
  url: string;
  headers: [string, string][];
  cookies: [string, string][];
  body?: BodyBytes;
}

/** Methods whose body fetch refuses to send (`http.ts` sends it over node:http instead). */
export const BODYLESS_IN_FETCH = new Set(["GET", "HEAD"]);

/** Content-based parameters carry JSON text; others are serialised by style. */
function wireValue(binding: ParameterBinding, value: unknown): unknown {
  return binding.contentType && isJsonType(binding.contentType) ? JSON.stringify(value) : value;
}

export function checkHeaderValue(name: string, value: string): string {
  if (/[\r\n\0]/.test(value)) throw new Error(`Header "${name}" must not contain line breaks or NUL characters`);
  return value;
}

/** `.` or `..`, also with the dots percent-encoded (WHATWG URL treats `%2e` as a dot). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Whether the segment, once a server decodes it, holds `.` or `..` between
 * separators: `..%2Fadmin` is `../admin` to a server that decodes `%2F`
 * (or `%5C`) before it resolves the path.
 */
function hidesDotSegment(expanded: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(expanded);
  } catch {
    return false;
  }
  return decoded !== expanded && decoded.split(/[/\\]/).some((piece) => piece === "." || piece === "..");
}

/**
 * The path template with its `{placeholders}` expanded, segment by segment.
 * Expanded values are percent-encoded (`/`, `?`, `#`, `\`, `%` never leave
 * their segment), but `.` is unreserved, and label style even adds dots of
 * its own (`{.v}` with `""` is `.`). A segment that ends up `.` or `..` is
 * refused: a server (and `fetch` itself, which parses the URL the WHATWG
 * way before sending it) resolves it to another path, which would let one
 * enabled operation reach a disabled one (`/files/{a}/{b}` → `/admin`).
 * Percent-encoding the dots does not help: `%2e%2e` is a dot segment too.
 * Nor does hiding the separator: a value that decodes to a dot segment
 * between `/` or `\` (`../admin`, sent as `..%2Fadmin`) is refused as well,
 * since many servers decode `%2F` before they resolve the path.
 */
function expandPath(
  tool: ToolDomain,
  template: string,
  expand: (name: string) => { key: string; text: string },
): string {
  return template
    .split("/")
    .map((segment) => {
      const keys: string[] = [];
      const expanded = segment.replace(/\{([^{}/]+)\}/g, (_whole, name: string) => {
        const { key, text } = expand(name);
        keys.push(key);
        return text;
      });
      if (keys.length > 0 && (DOT_SEGMENT.test(expanded) || hidesDotSegment(expanded))) {
        const names = keys.map((key) => `"${key}"`).join(", ");
        throw new Error(
          `Path parameter ${names} of ${tool.method.toUpperCase()} ${tool.path} makes the path segment "${expanded}": ` +
            "dot segments are refused, since the server would resolve them to another path",
        );
      }
      return expanded;
    })
    .join("/");
}

export function buildRequest(
  tool: ToolDomain,
  baseUrl: string,
  defaultHeaders: Record<string, string>,
  parameters: Record<string, unknown>,
): PreparedRequest {
  const [pathTemplate = "", fixedQuery] = tool.path.split(/\?(.*)/s);
  const byName = new Map<string, ParameterBinding>();
  for (const binding of tool.parameters) if (binding.in === "path") byName.set(binding.name, binding);

  const path = expandPath(tool, pathTemplate, (name) => {
    const binding = byName.get(name);
    const value = binding ? own(parameters, binding.key) : undefined;
    if (binding === undefined || value === undefined || value === null) {
      throw new Error(`Missing path parameter "${binding?.key ?? name}"`);
    }
    return { key: binding.key, text: serializePath(name, wireValue(binding, value), binding.style, binding.explode) };
  });

  const query: string[] = fixedQuery ? [fixedQuery] : [];
  const headers: [string, string][] = Object.entries(defaultHeaders).map(([name, value]) => [
    name,
    checkHeaderValue(name, String(value)),
  ]);
  const cookies: [string, string][] = [];
  if (tool.accept && !headers.some(([name]) => name.toLowerCase() === "accept")) headers.push(["Accept", tool.accept]);

  for (const binding of tool.parameters) {
    const value = own(parameters, binding.key);
    if (value === undefined || value === null || binding.in === "path") continue;
    const wire = wireValue(binding, value);
    if (binding.in === "query") {
      query.push(...serializeQuery(binding.name, wire, binding.style, binding.explode, binding.allowReserved));
    } else if (binding.in === "header") {
      headers.push([binding.name, checkHeaderValue(binding.name, serializeHeader(wire, binding.explode))]);
    } else {
      cookies.push(...serializeCookie(binding.name, wire, binding.explode));
    }
  }

  const method = tool.method.toUpperCase();
  const body = own(parameters, BODY_KEY);
  let encoded: BodyBytes | undefined;
  if (tool.body && body !== undefined) {
    if (BODYLESS_IN_FETCH.has(method) && bodyKind(tool.body.mediaType) === "form") {
      query.push(...formPairs(body, tool.body));
    } else {
      const { contentType, body: bytes } = encodeBody(tool.body, body);
      if (contentType) headers.push(["Content-Type", checkHeaderValue("Content-Type", contentType)]);
      encoded = bytes;
    }
  }
  return {
    method,
    url: `${baseUrl}${path}${query.length > 0 ? `?${query.join("&")}` : ""}`,
    headers,
    cookies,
    ...(encoded === undefined ? {} : { body: encoded }),
  };
}

/**
 * The service's secret headers and query parameters (`ServiceState.secretHeaders` / `secretQuery` of the SDK): set
 * by the operator, sent on every request in place of any header or parameter of the same name.
 */
export interface SecretOverrides {
  headers: [string, string][];
  query: [string, string][];
}

export const NO_OVERRIDES: SecretOverrides = { headers: [], query: [] };

/**
 * The final URL and headers: credentials appended to the query, headers and cookies, then the secret overrides in
 * place of what has their names (headers case-insensitively, the `Cookie` header built from cookies included).
 */
export function withCredentials(
  request: PreparedRequest,
  credentials: Credentials,
  overrides: SecretOverrides = NO_OVERRIDES,
): { url: string; headers: Headers } {
  const extraQuery = credentials.query.flatMap(([name, value]) => serializeQuery(name, value, "form", true));
  const separator = request.url.includes("?") ? "&" : "?";
  const url = extraQuery.length > 0 ? `${request.url}${separator}${extraQuery.join("&")}` : request.url;
  const headers = new Headers();
  for (const [name, value] of request.headers) headers.set(name, value);
  for (const [name, value] of credentials.headers) headers.set(name, checkHeaderValue(name, value));
  const cookies = [
    ...request.cookies,
    ...credentials.cookies.map(([name, value]) => [name, encodeURIComponent(value)] as const),
  ];
  if (cookies.length > 0) {
    const existing = headers.get("cookie");
    const pairs = cookies.map(([name, value]) => `${name}=${value}`).join("; ");
    headers.set("Cookie", existing ? `${existing}; ${pairs}` : pairs);
  }
  for (const [name, value] of overrides.headers) headers.set(name, checkHeaderValue(name, value));
  return { url: withQueryReplaced(url, overrides.query), headers };
}

/** `url` with every parameter named in `pairs` taken out of its query, and `pairs` appended (form-encoded). */
export function withQueryReplaced(url: string, pairs: readonly [string, string][]): string {
  if (pairs.length === 0) return url;
  const names = new Set(pairs.map(([name]) => name));
  const start = url.indexOf("?");
  const kept =
    start === -1
      ? []
      : url
          .slice(start + 1)
          .split("&")
          .filter((pair) => pair !== "" && !names.has(queryName(pair)));
  const added = pairs.flatMap(([name, value]) => serializeQuery(name, value, "form", true));
  return `${start === -1 ? url : url.slice(0, start)}?${[...kept, ...added].join("&")}`;
}

/** The decoded name of one `name=value` pair of a query (as written when it does not decode). */
function queryName(pair: string): string {
  const name = pair.split("=", 1)[0]!;
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
