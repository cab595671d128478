import type { AdapterModule, InvokeInput, ModuleSetupContext, ServiceDefinition, ServiceState } from "@cyrnel/sdk";
import { traceOutbound } from "@cyrnel/sdk";
import {
  type Credentials,
  credentialsFor,
  hasAccessToken,
  mergeCredentials,
  type SchemeDomain,
  schemeToken,
  selectAlternative,
  usesAccessToken,
  withAccessToken,
} from "./auth.js";
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  operationBaseUrl,
  resolveBaseUrl,
  type ServiceBase,
} from "./config.js";
import { type DefinitionOptions, DefinitionThread } from "./definition-thread.js";
import { readServiceDomain, readToolDomain, type ServiceDomain, type ToolDomain } from "./domain.js";
import { displayUrl, send, successBody } from "./http.js";
import { definitionOptions } from "./module-config.js";
import { TokenCache, type TokenRequest } from "./oauth2.js";
import { FRAMING_HEADERS } from "./operations.js";
import { BODY_KEY } from "./parameters.js";
import { isRecord, own } from "./records.js";
import {
  buildRequest,
  checkHeaderValue,
  type PreparedRequest,
  type SecretOverrides,
  withCredentials,
} from "./request.js";
import { withSecretFields, withSecretParameters } from "./secret-parameters.js";

/** What the adapter keeps per hydrated service (in memory only: secrets included). */
interface ServiceRuntime {
  domain: ServiceDomain;
  tools: Map<string, ToolDomain>;
  /** From the config, resolved once: operations with their own server derive theirs from it unless it was configured. */
  base: ServiceBase;
  secrets: Record<string, unknown>;
  headers: Record<string, string>;
  /** The operator's secret headers and query parameters, sent on every request over everything else. */
  overrides: SecretOverrides;
  /** Their values, and a secret header's credentials without its scheme: scrubbed like credentials. */
  overrideSecrets: string[];
  timeoutMs: number;
  maxResponseBytes: number;
  crossOriginRedirects: boolean;
  tokens: TokenCache;
}

/** One tool call, as `perform` sends it (again, after a 401 to a cached OAuth2 token). */
interface Call {
  service: ServiceRuntime;
  tool: ToolDomain;
  request: PreparedRequest;
  parameters: Record<string, unknown>;
  baseUrl: string;
  /** The connected account's token (`InvokeInput.accessToken`), when the host sets one. */
  accessToken: string | undefined;
  /** Where the spans of the call's requests start (`InvokeInput.trace`), when the host traces calls. */
  trace: InvokeInput["trace"];
  /** Told the success's status and headers (`InvokeInput.respond`), when the caller asked for the whole response. */
  respond: InvokeInput["respond"];
}

interface TokenUse {
  request: TokenRequest;
  fresh: boolean;
}

const sameOrigin = (a: string, b: string) => new URL(a).origin === new URL(b).origin;

function timeoutOf(config: Record<string, unknown>): number {
  const value = config.timeoutMs;
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : DEFAULT_TIMEOUT_MS;
}

function maxResponseBytesOf(config: Record<string, unknown>): number {
  const value = config.maxResponseBytes;
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_MAX_RESPONSE_BYTES;
}

function headersOf(config: Record<string, unknown>): Record<string, string> {
  const value = config.headers;
  if (value === undefined) return {};
  if (!isRecord(value) || Object.values(value).some((item) => typeof item !== "string")) {
    throw new Error("config.headers must map header names to strings");
  }
  const framing = Object.keys(value).find((name) => FRAMING_HEADERS.has(name.toLowerCase()));
  if (framing !== undefined) {
    throw new Error(`config.headers must not set "${framing}": framing headers are computed for each request`);
  }
  return { ...(value as Record<string, string>) };
}

/**
 * The service's secret headers and query parameters (the host checked their names; a header the HTTP client
 * could not send fails the enable here, not the first call, and the message never holds the value).
 */
function overridesOf(state: ServiceState): SecretOverrides {
  const headers = Object.entries(state.secretHeaders ?? {});
  for (const [name, value] of headers) {
    if (typeof value !== "string") throw new Error(`the secret header "${name}" must be a string`);
    if (FRAMING_HEADERS.has(name.toLowerCase())) {
      throw new Error(`the secret header "${name}" must not be set: framing headers are computed for each request`);
    }
    checkHeaderValue(name, value);
    try {
      new Headers().set(name, value);
    } catch {
      throw new Error(`the secret header "${name}" is not a header the HTTP client can send (its name or its value)`);
    }
  }
  const query = Object.entries(state.secretQuery ?? {});
  const notString = query.find(([, value]) => typeof value !== "string");
  if (notString) throw new Error(`the secret query parameter "${notString[0]}" must be a string`);
  return { headers, query };
}

/** `<scheme> <credentials>` (RFC 9110 §11.4), as in `Authorization: token ghp_…`. */
const SCHEME_AND_CREDENTIALS = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ +(\S+)$/;

/** What to scrub of the overrides: every value, and a header's credentials alone (an upstream may quote those). */
function overrideSecretsOf(overrides: SecretOverrides): string[] {
  const values = [...overrides.headers, ...overrides.query].map(([, value]) => value);
  const credentials = overrides.headers.flatMap(([, value]) => SCHEME_AND_CREDENTIALS.exec(value)?.[1] ?? []);
  return [...values, ...credentials];
}

const isAuthorization = ([name]: [string, string]) => name.toLowerCase() === "authorization";

/**
 * The OpenAPI adapter: `generateDefinition` is the pure pipeline in
 * `definition.ts`; `invoke` builds the request (`request.ts`), adds
 * credentials (`auth.ts`, `oauth2.ts`) and performs it (`http.ts`).
 */
export class OpenApiAdapter implements AdapterModule {
  private readonly services = new Map<string, ServiceRuntime>();
  /**
   * Aborted by teardown, so HTTP calls still in flight end at once: the host
   * stops waiting for a slow call at its own timeout, but the open socket
   * would otherwise keep running (and keep a stopping host process alive)
   * until the call's `timeoutMs`.
   */
  private lifetime = new AbortController();

  /** Runs `generateDefinition` in a worker thread, under a deadline; replaced when the module config changes it. */
  private definitions: DefinitionThread;

  /**
   * `now` drives OAuth2 token expiry (tests pass a controllable clock);
   * `options` bound the processing of one definition text until `setup`
   * applies the module's config (see `module-config.ts` for the defaults).
   */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly options: DefinitionOptions = {},
  ) {
    this.definitions = new DefinitionThread(options);
  }

  /** Applies the module's config and starts the definition worker ahead of the first install (see `definition-thread.ts`). */
  async setup(context: ModuleSetupContext): Promise<void> {
    await this.definitions.stop();
    this.definitions = new DefinitionThread({ ...this.options, ...definitionOptions(context.config) });
    this.definitions.start();
  }

  async teardown(): Promise<void> {
    this.lifetime.abort("the openapi adapter was stopped");
    this.lifetime = new AbortController();
    this.services.clear();
    await this.definitions.stop();
  }

  /** The pure pipeline of `definition.ts`, run off this thread (see `definition-thread.ts`). */
  generateDefinition(input: string): Promise<ServiceDefinition> {
    return this.definitions.generate(input);
  }

  async hydrateService(state: ServiceState): Promise<void> {
    const domain = readServiceDomain(state.adapterDomain);
    const tools = new Map<string, ToolDomain>();
    for (const [id, tool] of Object.entries(state.tools)) tools.set(id, readToolDomain(id, tool.adapterDomain));
    const overrides = overridesOf(state);
    this.services.set(state.id, {
      domain,
      tools,
      // Throws when no usable base URL can be built: the enable fails, not the first call.
      base: resolveBaseUrl(domain.server, state.config),
      secrets: { ...state.secrets },
      headers: headersOf(state.config),
      overrides,
      overrideSecrets: overrideSecretsOf(overrides),
      timeoutMs: timeoutOf(state.config),
      maxResponseBytes: maxResponseBytesOf(state.config),
      crossOriginRedirects: state.config.followCrossOriginRedirects === true,
      tokens: new TokenCache(this.now),
    });
  }

  async dehydrateService(id: string): Promise<void> {
    this.services.delete(id);
  }

  async invoke(input: InvokeInput): Promise<unknown> {
    const service = this.services.get(input.serviceId);
    if (!service) throw new Error(`Unknown service "${input.serviceId}": it is not enabled on the openapi adapter`);
    const tool = service.tools.get(input.toolId);
    if (!tool) throw new Error(`Unknown tool "${input.toolId}" on service "${input.serviceId}"`);
    const baseUrl = operationBaseUrl(service.base, tool.server);
    const parameters = isRecord(input.parameters) ? input.parameters : {};
    const request = buildRequest(tool, baseUrl, service.headers, parameters);
    const call: Call = {
      service,
      tool,
      request,
      parameters,
      baseUrl,
      accessToken: input.accessToken,
      trace: input.trace,
      respond: input.respond,
    };
    return this.perform(call, true, input.signal);
  }

  private async perform(call: Call, mayRetry: boolean, caller: AbortSignal | undefined): Promise<unknown> {
    const { service, tool, request, parameters, baseUrl } = call;
    const cancel = [this.lifetime.signal, caller];
    const { credentials: given, tokens, tokenOf } = await this.credentials(call);
    // Form fields a secret provides are filled in now that the tokens are known; messages keep showing the
    // request as the caller made it (a GET sends its form fields in the URL).
    const fields = withSecretFields(tool.body?.secretFields, own(parameters, BODY_KEY), tokenOf);
    const sent = fields ? buildRequest(tool, baseUrl, service.headers, { ...parameters, body: fields.body }) : request;
    const credentials = fields ? { ...given, secrets: [...given.secrets, ...fields.secrets] } : given;
    const { url, headers } = withCredentials(sent, credentials, service.overrides);
    const exchange = {
      method: request.method,
      url,
      displayUrl: displayUrl(request.url),
      headers,
      ...(sent.body === undefined ? {} : { body: sent.body }),
      timeoutMs: service.timeoutMs,
      maxResponseBytes: service.maxResponseBytes,
      crossOriginRedirects: service.crossOriginRedirects,
      cancel,
      credentialHeaders: [
        ...[...credentials.headers, ...service.overrides.headers].map(([name]) => name.toLowerCase()),
        ...(credentials.cookies.length > 0 ? ["cookie"] : []),
      ],
      secrets: [...credentials.secrets, ...service.overrideSecrets],
    };
    // The request's span, a child of the tool call's, and its traceparent for the upstream (nothing when untraced).
    const span = traceOutbound(call, { protocol: "http", method: request.method, url: baseUrl, route: tool.path });
    for (const [name, value] of Object.entries(span.headers)) headers.set(name, value);
    let reply: Awaited<ReturnType<typeof send>>;
    try {
      reply = await send(exchange);
    } catch (error) {
      span.end({ error });
      throw error;
    }
    span.end({ status: reply.status });
    // A cached OAuth2 token may have been revoked early: fetch a new one and retry once, with credentials.
    if (reply.status === 401 && mayRetry && tokens.some((use) => !use.fresh)) {
      for (const use of tokens) service.tokens.invalidate(use.request);
      return this.perform(call, false, caller);
    }
    const body = successBody(exchange, reply);
    call.respond?.({ status: reply.status, headers: reply.headers });
    return body;
  }

  /**
   * The credentials of the first satisfiable security alternative, then the
   * parameters a secret covers (`secret-parameters.ts`): those the caller
   * left out get their scheme's token, the one fetched for this call when
   * the scheme is OAuth2 without a ready access token.
   *
   * A call for a connected account (`accessToken`) has that token as the
   * secret of every OAuth2 and OpenID Connect scheme and prefers the
   * alternatives that use one; where the chosen alternative uses none (or
   * the operation has no security) the token goes as `Authorization: Bearer`,
   * over any other scheme's `Authorization` — unless the operator set a
   * secret `Authorization` header, which wins over everything.
   */
  private async credentials(
    call: Call,
  ): Promise<{ credentials: Credentials; tokens: TokenUse[]; tokenOf: (scheme: string) => string | undefined }> {
    const { service, tool, request, parameters, baseUrl, accessToken } = call;
    const schemes = service.domain.securitySchemes;
    const secrets =
      accessToken === undefined ? service.secrets : withAccessToken(service.secrets, schemes, accessToken);
    const alternative = selectAlternative(tool.security, schemes, secrets, accessToken !== undefined);
    if (alternative === null) {
      const options = tool.security.map((alt) => alt.map(({ scheme }) => `"${scheme}"`).join(" + ")).join(" or ");
      throw new Error(`${request.method} ${displayUrl(request.url)} needs credentials: set the secret ${options}`);
    }
    const parts: Credentials[] = [];
    const tokens: TokenUse[] = [];
    const fetched = new Map<string, string>();
    for (const { scheme, scopes } of alternative) {
      const domain = schemes[scheme] as SchemeDomain;
      const secret = own(secrets, scheme);
      if (domain.type === "oauth2" && !hasAccessToken(secret)) {
        const tokenUrl = new URL(domain.tokenUrl ?? "", `${baseUrl}/`).href;
        const tokenRequest: TokenRequest = {
          tokenUrl,
          clientId: String(own(secret, "clientId")),
          clientSecret: String(own(secret, "clientSecret")),
          scopes,
          clientAuthentication: own(secret, "clientAuthentication") === "body" ? "body" : "basic",
          ...(sameOrigin(tokenUrl, baseUrl) ? { headers: service.overrides.headers } : {}),
          timeoutMs: service.timeoutMs,
          // The adapter's lifetime only: a token fetched for one call is shared by the calls that wait for it.
          cancel: this.lifetime.signal,
        };
        const { token, fresh } = await service.tokens.get(tokenRequest);
        tokens.push({ request: tokenRequest, fresh });
        fetched.set(scheme, token);
        parts.push(credentialsFor(domain, secret, token));
      } else {
        parts.push(credentialsFor(domain, secret));
      }
    }
    if (
      accessToken !== undefined &&
      !usesAccessToken(alternative, schemes) &&
      !service.overrides.headers.some(isAuthorization)
    ) {
      parts.push({
        headers: [["Authorization", `Bearer ${accessToken}`]],
        query: [],
        cookies: [],
        secrets: [accessToken],
      });
    }
    const tokenOf = (scheme: string) => {
      const domain = Object.hasOwn(schemes, scheme) ? schemes[scheme] : undefined;
      return fetched.get(scheme) ?? (domain && schemeToken(domain, own(secrets, scheme)));
    };
    const credentials = withSecretParameters(mergeCredentials(parts), tool.parameters, parameters, tokenOf);
    return { credentials, tokens, tokenOf };
  }
}
