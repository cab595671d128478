import type { CallTrace } from "./trace.js";

/**
 * A JSON Schema document (draft-07, 2019-09 or 2020-12, chosen by `$schema`;
 * draft-07 when absent). Adapters and environments treat schemas as opaque;
 * the host validates payloads against them with ajv.
 *
 * Named types: a shared or recursive schema is best put under `$defs/<Name>`
 * and referenced with `{"$ref": "#/$defs/<Name>"}`; environments declare it
 * once under that name (per service) and refer to it by name wherever it is
 * used. Give the same definition the same name in every tool of a service.
 * A schema inlined from a named definition (e.g. at a tool's root, where a
 * bare `$ref` would read poorly) may carry {@link SCHEMA_NAME_KEYWORD}.
 */
export type JSONSchema = Record<string, unknown>;

/**
 * Annotation naming the definition a schema was inlined from:
 * `{"x-cyrnel-name": "Pet", "type": "object", …}` says "this is `Pet`", so
 * documentation and types can show `Pet` instead of its body again. It is
 * only a hint (validators ignore it, as JSON Schema does unknown keywords):
 * environments still compare the bodies of everything they give one name.
 */
export const SCHEMA_NAME_KEYWORD = "x-cyrnel-name";

/**
 * What an adapter returns from {@link AdapterModule.generateDefinition}: one
 * service and its tools. The host persists it together with an id, the
 * SHA-256 of the definition text, the source, the adapter id and an
 * `enabled` flag.
 */
export interface ServiceDefinition {
  /** Human-friendly name of the service. */
  name: string;
  /** What the service does; shown to operators and LLMs. */
  description: string;
  /** Per-service configuration; the host validates patches against it and applies its defaults. */
  configSchema: JSONSchema;
  /** Per-service secrets; stored encrypted, validated on patch, never returned over the API. */
  secretsSchema: JSONSchema;
  /** One entry per callable operation. */
  tools: ToolDefinition[];
  /**
   * Opaque to the host: whatever the adapter needs at invoke time (base
   * URLs, security schemes, …). Persisted in plaintext, so never put
   * secrets here.
   */
  adapterDomain: Record<string, unknown>;
  /**
   * Optional (a cyrnel extension): the OAuth2 authorization-code flow the
   * service's own description declares (an OpenAPI `authorizationCode`
   * flow, for one). A host that has it offers to connect the service to a
   * user's account: it runs the flow, keeps the tokens and hands the
   * adapter the account's access token with each call
   * ({@link InvokeInput.accessToken}). URLs are absolute.
   */
  authorization?: AuthorizationCodeFlow;
}

/** Where a service's users sign in to grant access (RFC 6749 §4.1), as its description declares. */
export interface AuthorizationCodeFlow {
  authorizationUrl: string;
  tokenUrl: string;
  /** The scopes the description lists (a host asks for those an operator chooses). */
  scopes: string[];
}

/** One callable operation of a service. */
export interface ToolDefinition {
  /**
   * What code addresses: `cyrnel.services.<service>.tools.<id>`. Must be a
   * valid, non-reserved TypeScript identifier (see {@link isValidIdentifier});
   * the host rejects the install otherwise.
   */
  id: string;
  /** Human-friendly name. */
  name: string;
  /** What the tool does and when to use it. */
  description: string;
  /** Schema of the `parameters` object passed to `invoke`; the host validates it before calling the adapter. */
  inputSchema: JSONSchema;
  /** Schema of the value `invoke` resolves with. */
  outputSchema: JSONSchema;
  /** Opaque per-tool routing data for the adapter (e.g. method and path). */
  adapterDomain: Record<string, unknown>;
  /**
   * What calling the tool does to the world, as far as the adapter can tell
   * (see {@link ToolAnnotations}). Optional: a tool without them claims
   * nothing. Operators write tool policies against them (e.g. "ask before
   * anything that is not read-only"), so never claim more than is true.
   */
  annotations?: ToolAnnotations;
  /**
   * Where a call goes, in the words of the service's own protocol, for
   * people and search: an HTTP adapter gives the method and path template
   * (`"POST /v1/refunds"`). Optional. The host indexes it for tool search
   * (an agent may know the route it wants, or search by a word only the
   * path carries) and never reads {@link adapterDomain} for this.
   */
  endpoint?: string;
  /**
   * The service secrets a call needs, as alternatives: a call can
   * authenticate when every secret of one alternative is set (names are
   * top-level properties of {@link ServiceDefinition.secretsSchema}), e.g.
   * `[["api_key"], ["oauth"]]`. Optional: absent, or an empty alternative,
   * means a call needs none (or the adapter cannot tell). The host marks a
   * tool none of whose alternatives is set in its tool lists and types (an
   * agent then knows the call would fail before it writes it); it never
   * refuses a call for it, since credentials may also come from elsewhere
   * (secret headers, a connected account).
   */
  secrets?: string[][];
}

/**
 * Hints about a tool's effect, with the meaning of MCP's tool annotations
 * (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`).
 * Each is optional; an absent hint is "not claimed", and the host's policy
 * rules treat it as `false`. They are hints, not guarantees: the host shows
 * them and matches policies against them, and cannot check them.
 */
export interface ToolAnnotations {
  /** The tool does not change anything (e.g. an HTTP `GET`). */
  readOnly?: boolean;
  /** The tool may delete or overwrite data irreversibly (e.g. an HTTP `DELETE`). Meaningful when not read-only. */
  destructive?: boolean;
  /** Calling it again with the same parameters has no further effect (e.g. HTTP `PUT` and `DELETE`). */
  idempotent?: boolean;
  /** The tool reaches entities outside the host's own data (an external API), rather than a closed domain. */
  openWorld?: boolean;
}

/** What happens to a call of a tool, by its service's policy: run it, ask an operator first, or refuse it. */
export type ToolPolicy = "allow" | "ask" | "deny";

/** The per-tool part of a {@link ServiceState}: only what the adapter needs at invoke time. */
export type ToolState = Omit<
  ToolDefinition,
  "id" | "name" | "description" | "inputSchema" | "outputSchema" | "annotations" | "endpoint" | "secrets"
>;

/**
 * The snapshot of one service the host hands to
 * {@link AdapterModule.hydrateService}. It is the source of truth: adapters
 * replace whatever they kept for `id` with it, never merge.
 */
export interface ServiceState
  extends Omit<
    ServiceDefinition,
    "name" | "description" | "configSchema" | "secretsSchema" | "tools" | "authorization"
  > {
  /** The service id chosen at install time. */
  id: string;
  /** Per-tool adapter data, keyed by tool id. */
  tools: Record<string, ToolState>;
  /** Validated configuration with schema defaults applied. */
  config: Record<string, unknown>;
  /**
   * Decrypted secrets with schema defaults applied. Keep them in memory
   * only: never log them, never write them anywhere.
   */
  secrets: Record<string, unknown>;
  /**
   * Headers the operator set as secrets of the service (a cyrnel
   * extension), by header name: send them on every request of every call,
   * in place of any header of the same name (case-insensitive) the adapter
   * would send otherwise. They are how an API whose description declares no
   * security scheme gets its credential (`Authorization: token …`). Secret
   * like {@link secrets}: never log or persist them. Absent or empty: none.
   */
  secretHeaders?: Record<string, string>;
  /**
   * Query parameters the operator set as secrets of the service (a cyrnel
   * extension), by name: add them to every request's URL, in place of a
   * parameter of the same name. For a protocol without URLs (gRPC) they do
   * not apply. Secret like {@link secrets}.
   */
  secretQuery?: Record<string, string>;
}

/** The payload of every tool call, from an environment to the host and from the host to an adapter. */
export interface InvokeInput {
  serviceId: string;
  toolId: string;
  /** Already validated by the host against the tool's `inputSchema` when it reaches an adapter. */
  parameters: Record<string, unknown>;
  /**
   * Set by the host on every call it hands an adapter: aborted when nobody
   * waits for the answer any more — the call's own timeout, or the end of
   * the run that made it (a kill, the run's timeout, the host shutting
   * down, a cancelled MCP request). Pass it to every request the call makes
   * (`fetch(url, { signal })`, {@link fetchFollowingRedirects}): a call that
   * ignores it keeps its connection open until it ends by itself, and its
   * key's in-flight calls stay counted until then. An environment sending a
   * call to the host leaves it out.
   */
  signal?: AbortSignal;
  /**
   * Set by the host (a cyrnel extension) when the service's calls act for a
   * connected account (an OAuth2 authorization-code connection): the
   * account's current access token. Use it as the credential of the call:
   * in place of the token of any OAuth2 or OpenID Connect scheme of the
   * service, and as `Authorization: Bearer <token>` where the service
   * declares none (a secret `Authorization` header,
   * {@link ServiceState.secretHeaders}, still wins). When the end service
   * answers 401, throw an {@link AdapterError} with `status: 401`: the host
   * refreshes the token and calls once more. Never log it.
   */
  accessToken?: string;
  /**
   * Set by a host that traces calls (a cyrnel extension): where the spans of
   * the call's outbound requests start. Do not call it directly: pass the
   * input to `traceOutbound` for each request, send the headers it
   * answers and end its span with the upstream's answer (see `trace.ts`).
   */
  trace?: CallTrace;
  /**
   * Set by code that asked for the whole response (a cyrnel extension:
   * `invoke(params, { withResponse: true })` in the sandbox): the call
   * resolves with a {@link ToolResponse} instead of the body. An environment
   * passes it on to the host; adapters do not read it (they report what they
   * have through {@link respond}).
   */
  withResponse?: boolean;
  /**
   * Set by the host when the caller asked for the whole response (a cyrnel
   * extension): call it with the end service's status and headers before
   * resolving with the body. An adapter that never calls it answers with the
   * body alone; the caller then gets `status: null` and no headers.
   */
  respond?: (meta: ResponseMeta) => void;
}

/** What the end service answered besides the body, as far as the adapter has it (see {@link InvokeInput.respond}). */
export interface ResponseMeta {
  /** The protocol's status (HTTP: 200, 201, …). */
  status?: number;
  /** Response headers (HTTP; gRPC: response metadata), names lower case, repeated ones joined with `, `. */
  headers?: Record<string, string>;
}

/**
 * What a call asked for with `withResponse` resolves with: the body as a
 * plain call resolves with it, and what the adapter said of the response
 * (`status` null and `headers` empty when it says nothing). The host drops
 * `set-cookie` and masks the service's secrets in header values.
 */
export interface ToolResponse<Body = unknown> {
  status: number | null;
  headers: Record<string, string>;
  body: Body;
}

/** Passed to {@link EnvironmentModule.generateToolDocs} to render one tool's reference page. */
export interface ToolDocsInput {
  serviceId: string;
  toolId: string;
  description: string;
  inputSchema: JSONSchema;
  outputSchema: JSONSchema;
  /** The tool's annotations, when it has any (a cyrnel extension). */
  annotations?: ToolAnnotations;
  /**
   * The tool's policy (a cyrnel extension): `ask` means each call from code
   * waits until an operator approves or denies it, `deny` that every call is
   * refused. Worth telling the code's author; absent means `allow`.
   */
  policy?: ToolPolicy;
  /**
   * The secrets the tool needs (its {@link ToolDefinition.secrets}) when
   * none of its alternatives is set (a cyrnel extension): a call fails
   * until an operator sets one. Worth telling the code's author; absent
   * means nothing is known to be missing.
   */
  missingSecrets?: string[][];
}
