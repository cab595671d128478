import type { JSONSchema } from "@cyrnel/sdk";
import type { Server } from "./operations.js";
import { define, own } from "./records.js";
import { DRAFT_07 } from "./schemas.js";

/**
 * Per-service configuration: where requests go and how.
 *
 * ```json
 * { "baseUrl": "https://demo.example.com:443/v2", "port": "443", "timeoutMs": 30000, "maxResponseBytes": 10485760, "headers": {} }
 * ```
 *
 * - `baseUrl` defaults to the first server with its variables filled from
 *   their defaults (Swagger 2: `schemes`/`host`/`basePath`, https when
 *   listed). When the document's server is relative (`/v1`) or missing there
 *   is no default and `baseUrl` is required.
 * - Each variable of that first server is a property of its own (a variable
 *   named like one of the fixed keys gets a `server_` prefix). Variables apply
 *   while `baseUrl` is left at its default: the URL is then rebuilt from the
 *   server template. An explicit `baseUrl` is used verbatim.
 * - `timeoutMs` bounds one call (default 30000); `headers` are extra headers
 *   sent with every request (parameters and credentials override them).
 * - `maxResponseBytes` bounds the body of one response (default 10 MiB).
 * - `followCrossOriginRedirects` (default false): a redirect to another origin
 *   is refused unless this is on (an open redirect on an allowed service
 *   would otherwise reach the host's own network); even then never to a
 *   link-local address (cloud metadata services live there).
 */

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const FIXED_KEYS = new Set(["baseUrl", "timeoutMs", "headers", "maxResponseBytes", "followCrossOriginRedirects"]);

export interface ServerVariableDomain {
  name: string;
  /** The config property holding its value. */
  key: string;
  default: string;
}

export interface ServerDomain {
  template: string;
  variables: ServerVariableDomain[];
  /** The template filled with defaults when that gives an absolute URL; the default of `baseUrl`. */
  defaultBaseUrl: string | null;
}

function isAbsoluteUrl(url: string): boolean {
  return /^https?:\/\//.test(url);
}

export function fillTemplate(template: string, values: ReadonlyMap<string, string>): string {
  return template.replace(/\{([^{}]+)\}/g, (whole, name: string) => values.get(name) ?? whole);
}

export function serverDomain(server: Server | undefined): ServerDomain | null {
  if (!server) return null;
  const taken = new Set(FIXED_KEYS);
  const variables = server.variables.map((variable) => {
    let key = FIXED_KEYS.has(variable.name) ? `server_${variable.name}` : variable.name;
    for (let n = 2; taken.has(key); n++) key = `server_${variable.name}_${n}`;
    taken.add(key);
    return { name: variable.name, key, default: variable.default };
  });
  const filled = trimSlash(fillTemplate(server.url, new Map(variables.map((v) => [v.name, v.default]))));
  return { template: server.url, variables, defaultBaseUrl: isAbsoluteUrl(filled) ? filled : null };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

export function configSchema(domain: ServerDomain | null, server: Server | undefined): JSONSchema {
  const properties: Record<string, JSONSchema> = {};
  const relative =
    domain !== null && domain.defaultBaseUrl === null
      ? ` The document's server URL is relative (${domain.template}): include that path.`
      : "";
  properties.baseUrl = {
    type: "string",
    pattern: "^https?://",
    description: `Absolute http(s) URL the operation paths are appended to.${relative}`,
    ...(domain?.defaultBaseUrl ? { default: domain.defaultBaseUrl } : {}),
  };
  for (const variable of domain?.variables ?? []) {
    const source = server?.variables.find((entry) => entry.name === variable.name);
    const values = source?.enum ? [...new Set([...source.enum, variable.default])] : undefined;
    define(properties, variable.key, {
      type: "string",
      description: `Server variable {${variable.name}} of ${domain?.template}, used while baseUrl is left at its default.${source?.description ? ` ${source.description}` : ""}`,
      default: variable.default,
      ...(values ? { enum: values } : {}),
    });
  }
  properties.timeoutMs = {
    type: "integer",
    minimum: 1,
    default: DEFAULT_TIMEOUT_MS,
    description: "Timeout of one call in milliseconds (connection, response and body).",
  };
  properties.maxResponseBytes = {
    type: "integer",
    minimum: 1,
    default: DEFAULT_MAX_RESPONSE_BYTES,
    description:
      "Largest response body accepted, in bytes: a longer one fails the call while it streams (error bodies are cut to 64 KiB).",
  };
  properties.followCrossOriginRedirects = {
    type: "boolean",
    default: false,
    description:
      "Follow redirects to another origin (scheme, host or port); never to a link-local address. Off: such a redirect fails the call.",
  };
  properties.headers = {
    type: "object",
    additionalProperties: { type: "string" },
    default: {},
    description: "Extra headers sent with every request.",
  };
  return {
    $schema: DRAFT_07,
    type: "object",
    properties,
    ...(domain?.defaultBaseUrl ? {} : { required: ["baseUrl"] }),
    additionalProperties: false,
  };
}

export interface ToolServer {
  template: string;
  variables: Record<string, string>;
}

/** Where a service's calls go, resolved once at hydrate time. */
export interface ServiceBase {
  url: string;
  /**
   * The operator configured `baseUrl` (it differs from the document's
   * default, or the document has none): it then replaces every server
   * level, so operation- and path-level servers are ignored.
   */
  configured: boolean;
}

/**
 * The service's base URL: an explicit `baseUrl` verbatim, else the server
 * template filled with the configured variables. Throws when nothing
 * absolute can be built (`hydrateService` calls it, so that surfaces at
 * enable time).
 */
export function resolveBaseUrl(domain: ServerDomain | null, config: Record<string, unknown>): ServiceBase {
  const configured = typeof config.baseUrl === "string" ? trimSlash(config.baseUrl) : undefined;
  let base: string | undefined;
  const explicit = configured !== undefined && configured !== domain?.defaultBaseUrl;
  if (explicit) {
    base = configured;
  } else if (domain) {
    const values = new Map(
      domain.variables.map((variable) => {
        const value = own(config, variable.key);
        return [variable.name, typeof value === "string" ? value : variable.default] as const;
      }),
    );
    base = trimSlash(fillTemplate(domain.template, values));
  }
  if (base === undefined || !isAbsoluteUrl(base)) {
    throw new Error("config.baseUrl must be set to an absolute http(s) URL: the document names no absolute server");
  }
  try {
    new URL(base);
  } catch {
    throw new Error("config.baseUrl is not a valid URL");
  }
  return { url: base, configured: explicit };
}

/**
 * The base URL of one call. A configured `baseUrl` wins over every server
 * level: traffic goes where the operator points the service. Otherwise the
 * operation's (or path's) own server applies, filled with its variables'
 * defaults, a relative one resolved against the service's URL.
 */
export function operationBaseUrl(service: ServiceBase, toolServer: ToolServer | null): string {
  if (!toolServer || service.configured) return service.url;
  const filled = trimSlash(fillTemplate(toolServer.template, new Map(Object.entries(toolServer.variables))));
  return isAbsoluteUrl(filled) ? filled : trimSlash(new URL(filled, `${service.url}/`).href);
}
