/**
 * The one path from a caller to an adapter's `invoke`, shared by
 * `POST /tools/:serviceId/:toolId/invoke` and by code running in an
 * environment. Every check runs before the adapter is called, in the order
 * of the gating table, so a disabled tool can never cause an outbound request.
 */
import type { InvokeInput } from "@cyrnel/sdk";
import { CyrnelError, messageOf } from "../../errors.js";
import type { HostLogger } from "../../log.js";
import { type SchemaValidator, summariseIssues } from "../json-schema.js";
import type { ModuleRegistry } from "../modules/module-registry.js";
import type { SecretStore } from "../secrets/secret-store.js";
import { TimeoutError, withTimeout } from "../with-timeout.js";
import type { ServiceStore } from "./service-store.js";

export interface ToolGateOptions {
  store: ServiceStore;
  modules: ModuleRegistry;
  secrets: SecretStore;
  validator: SchemaValidator;
  logger: HostLogger;
  invokeTimeoutMs: number;
}

export class ToolGate {
  constructor(private readonly options: ToolGateOptions) {}

  async invoke(input: InvokeInput): Promise<unknown> {
    const { serviceId, toolId } = input;
    const service = this.options.store.get(serviceId);
    if (!service) throw new CyrnelError("not_found", `service "${serviceId}" not found`);
    const tool = this.options.store.getTool(serviceId, toolId);
    if (!tool) throw new CyrnelError("not_found", `tool "${toolId}" not found on service "${serviceId}"`);
    if (service.stale) {
      throw new CyrnelError(
        "service_disabled",
        `service "${serviceId}" is stale (${service.staleReason}); update it first`,
      );
    }
    if (!service.enabled) throw new CyrnelError("service_disabled", `service "${serviceId}" is disabled`);
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
   * The adapter's message reaches the caller; any of the service's secret
   * values that slipped into it (or into the upstream body) are masked first.
   */
  private adapterError(serviceId: string, toolId: string, error: unknown): CyrnelError {
    const secrets = secretStrings(this.safeRead(serviceId));
    const mask = (text: string) => secrets.reduce((out, secret) => out.split(secret).join("[redacted]"), text);
    const upstream = error as { status?: unknown; body?: unknown } | null;
    const details =
      upstream && typeof upstream === "object" && (typeof upstream.status === "number" || upstream.body !== undefined)
        ? JSON.parse(mask(JSON.stringify({ status: upstream.status, body: upstream.body }) ?? "{}"))
        : undefined;
    const message = mask(messageOf(error));
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

/** Every string leaf of the secrets worth masking (very short values would mask ordinary words). */
function secretStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string" && value.length >= 4) out.push(value);
  else if (value && typeof value === "object") for (const item of Object.values(value)) secretStrings(item, out);
  return out;
}
