/**
 * The one path from a caller to an adapter's `invoke`, shared by
 * `POST /tools/:serviceId/:toolId/invoke` and by code running in an
 * environment. Every check runs before the adapter is called, in the order
 * of the gating table, so a disabled tool can never cause an outbound request.
 */
import { adapterErrorDetails, type InvokeInput, secretForms } from "@cyrnel/sdk";
import type { ValidateFunction } from "ajv";
import { cutText } from "../../cut-text.js";
import { CyrnelError, MAX_MESSAGE_CHARS, messageOf } from "../../errors.js";
import { describeIssues, type SchemaValidator, summariseIssues } from "../../lib/json-schema.js";
import { TimeoutError, withTimeout } from "../../lib/with-timeout.js";
import type { HostLogger } from "../../log.js";
import { type CallContext, seesService, type Viewer } from "../governance/caller.js";
import type { ModuleEntries } from "../modules/module-entries.js";
import type { SecretStore } from "../secrets/secret-store.js";
import { serviceNotFound, toolNotFound } from "./not-found.js";
import type { ServiceRow, ServiceStore, ToolRow } from "./service-store.js";

export interface ToolGateOptions {
  store: ServiceStore;
  modules: Pick<ModuleEntries, "activeAdapter">;
  secrets: SecretStore;
  validator: SchemaValidator;
  logger: HostLogger;
  invokeTimeoutMs: number;
  /** Why an enabled service is not running (it failed to hydrate), or null. */
  unavailable?: (serviceId: string) => string | null;
}

/** What a call needs from the database about one tool, with its compiled input validation. */
interface Lookup {
  service: ServiceRow;
  tool: ToolRow;
  /** The tool's `inputSchema` compiled, or why it cannot be. */
  validate: ValidateFunction | { error: string };
}

export class ToolGate {
  /**
   * Lookups by service and tool, valid for one revision of the services
   * (every write to them bumps it): code calls the same tools in loops, and
   * reading and parsing the rows and keying the compiled schema cost more
   * than the rest of the gate.
   */
  private readonly lookups = new Map<string, Lookup>();
  private lookupsRevision = -1;

  constructor(private readonly options: ToolGateOptions) {}

  /**
   * `call` says who calls (its key's allow-list applies: a service outside it
   * is a 404 exactly like one that does not exist) and from which process.
   */
  async invoke(input: InvokeInput, call: CallContext): Promise<unknown> {
    const { serviceId, toolId } = input;
    if (!seesService(call.caller, serviceId)) throw serviceNotFound(this.options.store, serviceId, call.caller);
    const { service, tool, validate } = this.lookup(serviceId, toolId, call.caller);
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

    const parameters = input.parameters ?? {};
    if (!(validate instanceof Function)) {
      throw new CyrnelError(
        "adapter_error",
        `tool "${toolId}" has an input schema that cannot be compiled: ${validate.error}`,
      );
    }
    // Compiled without defaults or coercion, so validating cannot change the parameters.
    if (validate(parameters) !== true) {
      const issues = describeIssues(validate.errors ?? []);
      throw new CyrnelError(
        "validation_failed",
        summariseIssues(`invalid parameters for ${serviceId}.${toolId}`, issues),
        issues,
      );
    }

    const adapter = this.options.modules.activeAdapter(service.adapter);
    if (!adapter) {
      throw new CyrnelError(
        "service_disabled",
        `adapter module "${service.adapter}" of service "${serviceId}" is not active`,
      );
    }
    try {
      return await withTimeout(`tool ${serviceId}.${toolId}`, this.options.invokeTimeoutMs, () =>
        adapter.invoke({ serviceId, toolId, parameters }),
      );
    } catch (error) {
      if (error instanceof TimeoutError) {
        throw new CyrnelError("invoke_timeout", `tool ${serviceId}.${toolId} did not answer within ${error.ms} ms`);
      }
      throw this.adapterError(serviceId, toolId, error);
    }
  }

  /** `viewer`: whose allow-list limits the ids a "not found" suggests. */
  private lookup(serviceId: string, toolId: string, viewer: Viewer): Lookup {
    const revision = this.options.store.revision;
    if (revision !== this.lookupsRevision) {
      this.lookups.clear();
      this.lookupsRevision = revision;
    }
    const key = `${serviceId}\u0000${toolId}`;
    const known = this.lookups.get(key);
    if (known) return known;
    const service = this.options.store.get(serviceId);
    if (!service) throw serviceNotFound(this.options.store, serviceId, viewer);
    const tool = this.options.store.getTool(serviceId, toolId);
    if (!tool) throw toolNotFound(this.options.store, serviceId, toolId, viewer);
    let validate: Lookup["validate"];
    try {
      // As sent: a default the caller did not ask for is never sent, so it must not fail the call.
      validate = this.options.validator.compile(tool.inputSchema, { applyDefaults: false });
    } catch (error) {
      validate = { error: messageOf(error) };
    }
    const lookup = { service, tool, validate };
    this.lookups.set(key, lookup);
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
  private adapterError(serviceId: string, toolId: string, error: unknown): CyrnelError {
    const needles = secretForms(this.safeRead(serviceId));
    const upstream = adapterErrorDetails(error);
    const details = upstream && { status: upstream.status, body: boundedBody(upstream.body, needles) };
    const excerpt = details ? bodyExcerpt(details.body, needles) : "";
    // Room is kept for what the upstream said: it is the part that explains the failure.
    const own = maskedPrefix(messageOf(error), MAX_ERROR_MESSAGE_CHARS - excerpt.length - 64, needles);
    const message = `${own}${upstreamSummary(own, details?.status, excerpt)}`;
    this.options.logger.warn("tool call failed", { service: serviceId, tool: toolId, error: message });
    return new CyrnelError("adapter_error", message, details);
  }

  private safeRead(serviceId: string): Record<string, unknown> {
    try {
      return this.options.secrets.read({ type: "service", id: serviceId });
    } catch {
      return {};
    }
  }
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

function mask(text: string, needles: readonly string[]): string {
  return needles.reduce((out, needle) => out.split(needle).join("[redacted]"), text);
}

/**
 * `text` masked and cut to `maxChars`. Only a prefix long enough to hold any
 * secret that starts inside the kept part is masked: no half secret is left
 * at the cut, and the megabytes past it are never scanned.
 */
function maskedPrefix(text: string, maxChars: number, needles: readonly string[]): string {
  const kept = text.slice(0, maxChars + (needles[0]?.length ?? 0));
  const masked = mask(kept, needles);
  // The tail that was never scanned counts as left out too.
  return cutText(masked, maxChars, masked.length + (text.length - kept.length));
}

/** The body with its secrets masked; a body over the limit becomes the start of its JSON text, marked as cut. */
function boundedBody(body: unknown, needles: readonly string[]): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(body);
  } catch {
    return "[the body is not JSON-serialisable]";
  }
  if (text === undefined) return undefined;
  if (text.length > MAX_ERROR_BODY_CHARS) return maskedPrefix(text, MAX_ERROR_BODY_CHARS, needles);
  return maskDeep(JSON.parse(text), needles);
}

/** Every string (keys included) of a JSON value, masked. */
function maskDeep(value: unknown, needles: readonly string[]): unknown {
  if (typeof value === "string") return mask(value, needles);
  if (Array.isArray(value)) return value.map((item) => maskDeep(item, needles));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, mask(key, needles), {
        value: maskDeep(item, needles),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
