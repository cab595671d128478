/**
 * The one path from a caller to an adapter's `invoke`, shared by
 * `POST /tools/:serviceId/:toolId/invoke` and by code running in an
 * environment. Every check runs before the adapter is called, in the order
 * of the gating table, so a disabled tool can never cause an outbound request.
 */
import { adapterErrorDetails, type InvokeInput, secretForms } from "@cyrnel/sdk";
import { cutText } from "../../cut-text.js";
import { CyrnelError, MAX_MESSAGE_CHARS, messageOf } from "../../errors.js";
import { type SchemaValidator, summariseIssues } from "../../lib/json-schema.js";
import { TimeoutError, withTimeout } from "../../lib/with-timeout.js";
import type { HostLogger } from "../../log.js";
import type { ModuleRegistry } from "../modules/module-registry.js";
import type { SecretStore } from "../secrets/secret-store.js";
import { serviceNotFound, toolNotFound } from "./not-found.js";
import type { ServiceStore } from "./service-store.js";

export interface ToolGateOptions {
  store: ServiceStore;
  modules: ModuleRegistry;
  secrets: SecretStore;
  validator: SchemaValidator;
  logger: HostLogger;
  invokeTimeoutMs: number;
  /** Why an enabled service is not running (it failed to hydrate), or null. */
  unavailable?: (serviceId: string) => string | null;
}

export class ToolGate {
  constructor(private readonly options: ToolGateOptions) {}

  async invoke(input: InvokeInput): Promise<unknown> {
    const { serviceId, toolId } = input;
    const service = this.options.store.get(serviceId);
    if (!service) throw serviceNotFound(this.options.store, serviceId);
    const tool = this.options.store.getTool(serviceId, toolId);
    if (!tool) throw toolNotFound(this.options.store, serviceId, toolId);
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
    let validation: ReturnType<SchemaValidator["validate"]>;
    try {
      // As sent: a default the caller did not ask for is never sent, so it must not fail the call.
      validation = this.options.validator.validate(tool.inputSchema, parameters, { applyDefaults: false });
    } catch (error) {
      throw new CyrnelError(
        "adapter_error",
        `tool "${toolId}" has an input schema that cannot be compiled: ${messageOf(error)}`,
      );
    }
    if (!validation.valid) {
      throw new CyrnelError(
        "validation_failed",
        summariseIssues(`invalid parameters for ${serviceId}.${toolId}`, validation.errors),
        validation.errors,
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
