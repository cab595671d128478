/**
 * The one path from a caller to an adapter's `invoke`, shared by
 * `POST /tools/:serviceId/:toolId/invoke` and by code running in an
 * environment. Every check runs before the adapter is called, in this
 * order: the service and the tool exist (404), are enabled (409), the
 * parameters match the input schema (400), and the service's policy lets
 * the call through — `deny` refuses it (403 `tool_denied`), `ask` makes a
 * call from code wait for an operator's decision (and refuses a direct
 * invoke, 403 `approval_required`). So a disabled or denied tool can never
 * cause an outbound request. After an approval every check runs again, with
 * the process's key read again: a decision can take minutes, and a key
 * revoked or expired (or narrowed) meanwhile must not have its call sent.
 * Every call, however it ends, is recorded.
 *
 * A call that reaches its adapter is handed an `AbortSignal` (the SDK's
 * `InvokeInput.signal`), aborted when nobody waits for the answer any more:
 * the call's timeout (504 `invoke_timeout`), the end of the run that made it
 * (`call_canceled`), or the host stopping (503 `shutting_down`). The gate
 * stops waiting at once; the signal lets the adapter close its request.
 * Each key has at most `maxInFlightPerKey` calls at its adapters at once
 * (counted until the adapter settles, or a grace period after the abort for
 * an adapter that ignores it): past it a call is `429 rate_limited`, so
 * kill-and-resubmit cannot pile up upstream requests.
 *
 * Each call is a span (telemetry/tracing.ts) — a child of its run's, or of
 * the request's for a direct invoke — with the wait for an approval as a
 * child of its own, and the adapter's outbound requests as others (it gets
 * `InvokeInput.trace`), so upstream time is never confused with a wait.
 */
import { adapterErrorDetails, type InvokeInput, type ResponseMeta, secretForms, type ToolResponse } from "@cyrnel/sdk";
import type { ValidateFunction } from "ajv";
import { CyrnelError, MAX_MESSAGE_CHARS, messageOf, rateLimited } from "../../errors.js";
import { describeIssues, type SchemaValidator, summariseIssues } from "../../lib/json-schema.js";
import type { HostLogger } from "../../log.js";
import { type CallSpan, NO_TRACING, type Tracing } from "../../telemetry/tracing.js";
import type { Connections } from "../connections/connections.js";
import type { ApprovalSummary } from "../governance/approval-store.js";
import type { Approvals } from "../governance/approvals.js";
import type { CallLog } from "../governance/call-log.js";
import { type CallContext, type Caller, limitKeyOf, seesService, type Viewer } from "../governance/caller.js";
import type { Policies } from "../governance/policies.js";
import type { PolicyAction } from "../governance/policy.js";
import type { ModuleEntries } from "../modules/module-entries.js";
import { boundedJson, mask, maskDeep, maskedPrefix, type SecretMasks } from "../secrets/secret-masks.js";
import { serviceNotFound, toolNotFound } from "./not-found.js";
import type { ServiceRow, ServiceStore, ToolRow } from "./service-store.js";

export interface ToolGateOptions {
  store: ServiceStore;
  modules: Pick<ModuleEntries, "activeAdapter">;
  masks: SecretMasks;
  validator: SchemaValidator;
  logger: HostLogger;
  invokeTimeoutMs: number;
  /** Most calls one key has at adapters at once (`CYRNEL_KEY_INFLIGHT_CALLS`). */
  maxInFlightPerKey: number;
  policies: Pick<Policies, "actionFor" | "revision">;
  approvals: Pick<Approvals, "request">;
  calls: Pick<CallLog, "record">;
  /** The caller a process's key stands for now; throws `forbidden` for a key revoked or expired (`ApiKeys.processCaller`). */
  caller(keyId: string | null): Promise<Caller>;
  /** Why an enabled service is not running (it failed to hydrate), or null. */
  unavailable?: (serviceId: string) => string | null;
  /** The connected account a call acts for (domain/connections/); absent: no service has connections. */
  connections?: Pick<Connections, "credentialFor" | "refreshAfterRejection">;
  /** Where calls' spans go; absent: none are recorded. */
  tracing?: Tracing;
}

/** What a call used that its record names. */
interface CallUse {
  connectionId: string | null;
  /** The policy action the call met, once the checks got that far. */
  policy: PolicyAction | null;
}

/** A failure of the connection a call uses, kept apart from the adapter's own failures (which are wrapped). */
class ConnectionFailure {
  constructor(readonly error: unknown) {}
}

/** What a call needs from the database about one tool, with its compiled input validation and policy. */
interface Lookup {
  service: ServiceRow;
  tool: ToolRow;
  /** The tool's `inputSchema` compiled, or why it cannot be. */
  validate: ValidateFunction | { error: string };
  action: PolicyAction;
  /** Whether an operator overrode the tool's input constraints (its schema is then the patched document's). */
  overridden: boolean;
}

/** What an operator is asked about a call that was in flight when its host died (`approvals.question`). */
export const RESEND_QUESTION =
  "This call was in flight when the host running its process stopped, so it may already have reached the service. " +
  "Approve to send it again; deny to have the call fail in the program (approve only if the service did not act on it).";

/**
 * What a call that asked for the whole response resolves with: the body, and the status and headers the adapter
 * told (none: `null` and `{}`). `set-cookie` is dropped (a session the host does not manage, and a credential), and
 * the service's secrets are masked in header values, as in every answer the host passes on.
 */
export function toolResponse(body: unknown, meta: ResponseMeta | undefined, needles: readonly string[]): ToolResponse {
  const status = typeof meta?.status === "number" && Number.isInteger(meta.status) ? meta.status : null;
  const headers: [string, string][] = [];
  for (const [name, value] of Object.entries(meta?.headers ?? {})) {
    const lower = name.toLowerCase();
    if (typeof value !== "string" || lower === "set-cookie" || lower === "set-cookie2") continue;
    headers.push([lower, mask(value, needles)]);
  }
  return { status, headers: Object.fromEntries(headers), body };
}

/** A call record's preview of the parameters is at most this many characters of JSON. */
const PARAMETERS_PREVIEW_CHARS = 2048;
/** How long an aborted call that its adapter does not end still counts against its key. */
const ABORT_GRACE_MS = 5_000;

export class ToolGate {
  /**
   * Lookups by service and tool, valid for one revision of the services
   * and policies (every write to them bumps it): code calls the same tools
   * in loops, and reading and parsing the rows and keying the compiled
   * schema cost more than the rest of the gate.
   */
  private readonly lookups = new Map<string, Lookup>();
  /** Services a lookup found in this revision (whether or not the tool was there). */
  private readonly services = new Set<string>();
  private lookupsRevision = "";
  /** Calls at adapters right now, per key (see `limitKeyOf`). */
  private readonly inFlight = new Map<string, number>();
  /** Aborted when the host stops: calls still at their adapters end `shutting_down`. */
  private readonly stopping = new AbortController();

  constructor(private readonly options: ToolGateOptions) {}

  /** The host is stopping: every call in flight is aborted and answered `503 shutting_down`. */
  stop(): void {
    this.stopping.abort();
  }

  /**
   * One call, recorded however it ends. `call` says who calls (its key's
   * allow-list applies: a service outside it is a 404 exactly like one that
   * does not exist) and from which run of a process (none: a direct invoke).
   */
  async invoke(input: InvokeInput, call: CallContext): Promise<unknown> {
    const startedAt = Date.now();
    const started = performance.now();
    let outcome = "ok";
    let status: number | null = null;
    const used: CallUse = { connectionId: null, policy: null };
    const { tracing = NO_TRACING } = this.options;
    const span = tracing.startCall(call.run, {
      serviceId: String(input.serviceId),
      toolId: String(input.toolId),
      keyId: call.caller.keyId,
      processId: call.processId,
      executionId: call.executionId,
    });
    try {
      return await span.run(() => this.call(input, call, used, span));
    } catch (error) {
      outcome = error instanceof CyrnelError ? error.code : "internal";
      status = upstreamStatus(error);
      throw error;
    } finally {
      const { serviceId, toolId } = input;
      const needles = await this.needles(serviceId);
      this.options.calls.record({
        context: call,
        serviceId: String(serviceId),
        toolId: String(toolId),
        startedAt,
        durationMs: performance.now() - started,
        outcome,
        status,
        connectionId: used.connectionId,
        parameters: boundedJson(input.parameters ?? {}, PARAMETERS_PREVIEW_CHARS, needles),
      });
      span.end({ outcome, status, policy: used.policy });
    }
  }

  private async call(input: InvokeInput, call: CallContext, used: CallUse, span: CallSpan): Promise<unknown> {
    const { serviceId, toolId } = input;
    const parameters = input.parameters ?? {};
    const { service, tool, action } = await this.check(serviceId, toolId, parameters, call.caller);
    used.policy = action;
    if (action === "deny") throw denied(serviceId, toolId);
    // A call that was in flight when the host running an earlier attempt of its run died may have reached the
    // service: sending it again is safe only for a tool that says so; any other asks an operator first.
    const resend =
      call.journal?.inFlight === true && tool.annotations.readOnly !== true && tool.annotations.idempotent !== true;
    if (action === "ask" || resend) {
      if (call.processId === null) {
        throw new CyrnelError(
          "approval_required",
          `tool "${toolId}" on service "${serviceId}" needs an operator's approval for every call; ` +
            "call it from process code (POST /processes), where the call waits for the decision",
        );
      }
      const wait = span.approvalWait();
      let approved: ApprovalSummary;
      try {
        approved = await this.options.approvals.request({
          processId: call.processId,
          keyId: call.caller.keyId,
          serviceId,
          toolId,
          parameters: maskDeep(parameters, await this.needles(serviceId)) as Record<string, unknown>,
          ...(call.journal && { call: { executionId: call.journal.executionId, index: call.journal.index } }),
          ...(resend && { question: RESEND_QUESTION }),
        });
        wait.end("approved");
      } catch (error) {
        wait.end(error instanceof CyrnelError ? error.code : "internal");
        throw error;
      }
      // The decision may have taken minutes: the key must still be valid (read again), and the tool still there,
      // enabled, allowed to that key and not denied meanwhile.
      const caller = await this.options.caller(call.caller.keyId);
      if ((await this.check(serviceId, toolId, parameters, caller)).action === "deny") throw denied(serviceId, toolId);
      call.note?.(approvedNote(`${serviceId}.${toolId}`, approved));
    }

    const adapter = this.options.modules.activeAdapter(service.adapter);
    if (!adapter) {
      throw new CyrnelError(
        "service_disabled",
        `adapter module "${service.adapter}" of service "${serviceId}" is not active`,
      );
    }
    // The account the call acts for, checked (and its token refreshed if about to expire) before anything is sent.
    const credential = (await this.options.connections?.credentialFor(serviceId, call.caller)) ?? null;
    used.connectionId = credential?.connectionId ?? null;
    // Journaled as started (durable runs) before it can reach the service; a call that cannot be journaled is not sent.
    await call.journal?.sending();
    const release = this.takeSlot(call);
    const controller = new AbortController();
    const stop = (error: CyrnelError) => () => controller.abort(error);
    const timer = setTimeout(
      stop(
        new CyrnelError(
          "invoke_timeout",
          `tool ${serviceId}.${toolId} did not answer within ${this.options.invokeTimeoutMs} ms`,
        ),
      ),
      this.options.invokeTimeoutMs,
    );
    const unlink = [
      listen(call.ended, stop(new CyrnelError("call_canceled", `the run that called ${serviceId}.${toolId} ended`))),
      listen(
        this.stopping.signal,
        stop(
          new CyrnelError(
            "shutting_down",
            `the host is shutting down; the call to ${serviceId}.${toolId} was canceled (it may have reached the service)`,
          ),
        ),
      ),
    ];
    const aborted = new Promise<never>((_resolve, reject) => {
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
    });
    aborted.catch(() => {});
    // Code that asked for the whole response: the adapter tells the status and headers it has (the last answer's,
    // after a retry with a fresh token).
    let meta: ResponseMeta | undefined;
    const respond =
      input.withResponse === true
        ? (told: ResponseMeta) => {
            meta = told;
          }
        : undefined;
    const send = (accessToken?: string) =>
      Promise.resolve().then(() =>
        adapter.invoke({
          serviceId,
          toolId,
          parameters,
          signal: controller.signal,
          ...(accessToken !== undefined && { accessToken }),
          ...(span.adapterTrace && { trace: span.adapterTrace }),
          ...(respond && { respond }),
        }),
      );
    const connections = this.options.connections;
    const invoked =
      credential === null || connections === undefined
        ? send()
        : send(credential.accessToken).catch(async (error: unknown) => {
            // The upstream refused the token (revoked early, or expired by its clock): refresh once, call again.
            if (adapterErrorDetails(error)?.status !== 401 || controller.signal.aborted) throw error;
            let fresh: string | null;
            try {
              fresh = await connections.refreshAfterRejection(
                serviceId,
                credential.connectionId,
                credential.accessToken,
                call.caller,
              );
            } catch (failure) {
              throw new ConnectionFailure(failure);
            }
            if (fresh === null) throw error;
            return send(fresh);
          });
    // The key's slot is free once the adapter settles, or a grace period after the abort if it never does.
    invoked.then(release, release);
    aborted.catch(() => setTimeout(release, ABORT_GRACE_MS).unref());
    try {
      const body = await Promise.race([invoked, aborted]);
      if (respond === undefined) return body;
      return toolResponse(body, meta, await this.needles(serviceId));
    } catch (error) {
      if (controller.signal.aborted && error === controller.signal.reason) throw error;
      if (error instanceof ConnectionFailure) throw error.error;
      throw await this.adapterError(serviceId, toolId, error, credential?.accessToken);
    } finally {
      clearTimeout(timer);
      for (const off of unlink) off();
    }
  }

  /** A slot among the key's calls in flight, or `429 rate_limited`; the function frees it (once). */
  private takeSlot(call: CallContext): () => void {
    const key = limitKeyOf(call.caller);
    const taken = this.inFlight.get(key) ?? 0;
    if (taken >= this.options.maxInFlightPerKey) {
      throw rateLimited(
        `this key already has ${taken} tool calls in flight, its limit (CYRNEL_KEY_INFLIGHT_CALLS); nothing was sent`,
        1,
      );
    }
    this.inFlight.set(key, taken + 1);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      const left = (this.inFlight.get(key) ?? 1) - 1;
      if (left === 0) this.inFlight.delete(key);
      else this.inFlight.set(key, left);
    };
  }

  /** The checks before the policy: exists (404), enabled (409), valid parameters (400). */
  private async check(
    serviceId: string,
    toolId: string,
    parameters: Record<string, unknown>,
    viewer: Viewer,
  ): Promise<Lookup> {
    if (!seesService(viewer, serviceId)) throw await serviceNotFound(this.options.store, serviceId, viewer);
    const lookup = await this.lookup(serviceId, toolId, viewer);
    const { service, tool, validate } = lookup;
    if (service.stale) {
      throw new CyrnelError(
        "service_disabled",
        `service "${serviceId}" is stale (${service.staleReason}); update it first`,
      );
    }
    if (!service.enabled) throw new CyrnelError("service_disabled", `service "${serviceId}" is disabled`);
    const down = this.options.unavailable?.(serviceId);
    if (down) throw new CyrnelError("service_disabled", `service "${serviceId}" is enabled but not running: ${down}`);
    if (!tool.enabled) throw new CyrnelError("tool_disabled", `tool "${toolId}" on service "${serviceId}" is disabled`);

    if (!(validate instanceof Function)) {
      throw new CyrnelError(
        "adapter_error",
        `tool "${toolId}" has an input schema that cannot be compiled: ${validate.error}`,
      );
    }
    // Compiled without defaults or coercion, so validating cannot change the parameters.
    if (validate(parameters) !== true) {
      const issues = describeIssues(validate.errors ?? []);
      // Where the constraint comes from: the API's document can be wrong, and the fix is an operator's.
      const source = lookup.overridden
        ? "constraints of the API's document as an operator overrode them; nothing was sent"
        : "constraints of the API's document; nothing was sent. If the API accepts these parameters, an operator " +
          `can override the tool's input constraints: PUT /tools/${serviceId}/${toolId}/input-override`;
      throw new CyrnelError(
        "validation_failed",
        `${summariseIssues(`invalid parameters for ${serviceId}.${toolId}`, issues)} (${source})`,
        issues,
      );
    }
    return lookup;
  }

  /** `viewer`: whose allow-list limits the ids a "not found" suggests. */
  private async lookup(serviceId: string, toolId: string, viewer: Viewer): Promise<Lookup> {
    const revision = `${this.options.store.revision}:${this.options.policies.revision}`;
    if (revision !== this.lookupsRevision) {
      this.lookups.clear();
      this.services.clear();
      this.lookupsRevision = revision;
    }
    const key = `${serviceId}\u0000${toolId}`;
    const known = this.lookups.get(key);
    if (known) return known;
    const service = await this.options.store.get(serviceId);
    if (!service) throw await serviceNotFound(this.options.store, serviceId, viewer);
    this.services.add(serviceId);
    const tool = await this.options.store.getTool(serviceId, toolId);
    // Kept only when nothing was written while reading (else the next call reads again).
    const current = () => `${this.options.store.revision}:${this.options.policies.revision}` === revision;
    if (!tool) throw await toolNotFound(this.options.store, serviceId, toolId, viewer);
    let validate: Lookup["validate"];
    try {
      // As sent: a default the caller did not ask for is never sent, so it must not fail the call.
      validate = this.options.validator.compile(tool.inputSchema, { applyDefaults: false });
    } catch (error) {
      validate = { error: messageOf(error) };
    }
    const lookup = {
      service,
      tool,
      validate,
      action: await this.options.policies.actionFor(tool),
      overridden: (await this.options.store.inputOverride(serviceId, toolId)) !== undefined,
    };
    if (current() && this.lookupsRevision === revision) this.lookups.set(key, lookup);
    return lookup;
  }

  /**
   * The adapter's message reaches the caller, followed by what the end
   * service answered when the adapter reported it (its status, if the
   * message does not already say it, and the start of its body), so code
   * that only prints `e.message` still says why the call failed. Any of the
   * service's secret values that slipped into the message or the upstream
   * body, in any form they travel in (percent-, form- or JSON-encoded,
   * basic's base64), are masked first. All is bounded: an adapter may repeat
   * a huge parameter or relay a huge upstream body, and this goes back to
   * code and the log.
   */
  private async adapterError(
    serviceId: string,
    toolId: string,
    error: unknown,
    accessToken: string | undefined,
  ): Promise<CyrnelError> {
    const own = await this.needles(serviceId);
    // A connection's access token is masked like the service's secrets (an upstream may echo the request).
    const needles =
      accessToken === undefined ? own : [...own, ...secretForms(accessToken)].sort((a, b) => b.length - a.length);
    const upstream = adapterErrorDetails(error);
    const details = upstream && {
      status: upstream.status,
      body: upstream.body === undefined ? undefined : boundedJson(upstream.body, MAX_ERROR_BODY_CHARS, needles).value,
    };
    const excerpt = details ? bodyExcerpt(details.body, needles) : "";
    // Room is kept for what the upstream said: it is the part that explains the failure.
    const said = maskedPrefix(messageOf(error), MAX_ERROR_MESSAGE_CHARS - excerpt.length - 64, needles);
    const message = `${said}${upstreamSummary(said, details?.status, excerpt)}`;
    this.options.logger.warn("tool call failed", { service: serviceId, tool: toolId, error: message });
    // The adapter says the call ran out of time (gRPC's DEADLINE_EXCEEDED): a timeout, as the host's own would be.
    return new CyrnelError(upstream?.timedOut ? "invoke_timeout" : "adapter_error", message, details);
  }

  /**
   * The forms of the service's secret values, to mask; none for a service that does not exist (code can send any
   * name: only services a lookup found are asked about, so the masks' cache holds real services only).
   */
  private async needles(serviceId: unknown): Promise<readonly string[]> {
    return typeof serviceId === "string" && this.services.has(serviceId) ? this.options.masks.of(serviceId) : [];
  }
}

/** Calls `then` once `signal` aborts (at once if it has); the function removes the listener. */
function listen(signal: AbortSignal | undefined, then: () => void): () => void {
  if (!signal) return () => {};
  if (signal.aborted) {
    then();
    return () => {};
  }
  signal.addEventListener("abort", then, { once: true });
  return () => signal.removeEventListener("abort", then);
}

function denied(serviceId: string, toolId: string): CyrnelError {
  return new CyrnelError(
    "tool_denied",
    `the policy of service "${serviceId}" denies tool "${toolId}"; nothing was sent (an operator can change the policy)`,
  );
}

/** The end service's status, when the adapter reported one with its failure. */
function upstreamStatus(error: unknown): number | null {
  if (!(error instanceof CyrnelError) || error.code !== "adapter_error") return null;
  const status = (error.details as { status?: unknown } | undefined)?.status;
  return typeof status === "number" ? status : null;
}

/** Longest adapter message passed on (CyrnelError cuts every message at this length too). */
const MAX_ERROR_MESSAGE_CHARS = MAX_MESSAGE_CHARS;
/** Longest upstream body passed on in `details`, as JSON text. */
const MAX_ERROR_BODY_CHARS = 64 * 1024;
/** Longest excerpt of the upstream body in the message (the whole body is in `details`). */
const MAX_BODY_EXCERPT_CHARS = 300;

/**
 * What to add to an adapter's `message` about the upstream answer: ` (upstream
 * status N)` unless the message already names N (the openapi adapter's
 * `GET … → 404 Not Found` does), then `: <excerpt>` unless the message
 * already holds it.
 */
function upstreamSummary(message: string, status: number | undefined, excerpt: string): string {
  const statusText =
    status === undefined || new RegExp(`(^|\\D)${status}(\\D|$)`).test(message) ? "" : ` (upstream status ${status})`;
  return excerpt === "" || message.includes(excerpt) ? statusText : `${statusText}: ${excerpt}`;
}

/**
 * The start of an upstream body for a message: a string as its text, any
 * other value as JSON, whitespace collapsed, at most 300 characters. The
 * body is already masked; the collapsed text is masked again (joining
 * whitespace could rebuild a secret's form).
 */
function bodyExcerpt(body: unknown, needles: readonly string[]): string {
  if (body === undefined || body === null) return "";
  const text = typeof body === "string" ? body : JSON.stringify(body);
  // Collapsing only shortens text, so four times the excerpt is plenty to read from.
  const start = text.slice(0, MAX_BODY_EXCERPT_CHARS * 4 + (needles[0]?.length ?? 0));
  const collapsed = mask(start.replace(/\s+/g, " ").trim(), needles);
  return collapsed.length > MAX_BODY_EXCERPT_CHARS || start.length < text.length
    ? `${collapsed.slice(0, MAX_BODY_EXCERPT_CHARS - 1)}…`
    : collapsed;
}

/** The run's stderr line for a call an operator approved: which approval, by whom, why. */
export function approvedNote(call: string, approval: Pick<ApprovalSummary, "id" | "decidedBy" | "reason">): string {
  const by = approval.decidedBy === null ? "the bootstrap key" : `key ${approval.decidedBy}`;
  const why = approval.reason === null ? "" : ` (${approval.reason.replace(/\s+/g, " ")})`;
  return `[cyrnel] the call to ${call} was approved by ${by}${why} (approval ${approval.id}); it is sent\n`;
}
