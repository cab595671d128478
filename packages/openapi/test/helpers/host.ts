import type { AdapterModule, ServiceDefinition, ServiceState } from "@cyrnel/sdk";
import { hostAjv } from "./ajv.js";

/**
 * The host's side of the adapter contract, reduced to what these tests
 * need: validate config (defaults applied) and secrets against the
 * definition's schemas, hydrate, and validate parameters against a tool's
 * inputSchema before invoking (as sent: no defaults filled in).
 */
export class FakeHost {
  private readonly ajv = hostAjv();
  private readonly exact = hostAjv(false);
  readonly definitions = new Map<string, ServiceDefinition>();

  constructor(readonly adapter: AdapterModule) {}

  async install(
    id: string,
    text: string,
    config: Record<string, unknown> = {},
    secrets: Record<string, unknown> = {},
    overrides: SecretOverrides = {},
  ): Promise<ServiceDefinition> {
    const definition = await this.adapter.generateDefinition(text);
    this.definitions.set(id, definition);
    await this.configure(id, config, secrets, overrides);
    return definition;
  }

  /** `overrides`: the secret headers and query parameters, as the host takes them out of the secrets. */
  async configure(
    id: string,
    config: Record<string, unknown>,
    secrets: Record<string, unknown> = {},
    overrides: SecretOverrides = {},
  ): Promise<void> {
    const definition = this.definitions.get(id)!;
    const withDefaults = structuredClone(config);
    const validConfig = this.ajv.compile(definition.configSchema);
    if (!validConfig(withDefaults)) throw new Error(`config: ${this.ajv.errorsText(validConfig.errors)}`);
    const validSecrets = this.ajv.compile(definition.secretsSchema);
    if (!validSecrets(secrets)) throw new Error(`secrets: ${this.ajv.errorsText(validSecrets.errors)}`);
    await this.adapter.hydrateService({
      id,
      adapterDomain: definition.adapterDomain,
      tools: Object.fromEntries(definition.tools.map((tool) => [tool.id, { adapterDomain: tool.adapterDomain }])),
      config: withDefaults,
      secrets,
      ...overrides,
    });
  }

  async invoke(
    serviceId: string,
    toolId: string,
    parameters: Record<string, unknown> = {},
    signal?: AbortSignal,
    accessToken?: string,
  ): Promise<unknown> {
    const tool = this.definitions.get(serviceId)?.tools.find((candidate) => candidate.id === toolId);
    if (!tool) throw new Error(`test: no tool ${serviceId}.${toolId}`);
    const validate = this.exact.compile(tool.inputSchema);
    const checked = structuredClone(parameters);
    if (!validate(checked)) throw new Error(`parameters: ${this.exact.errorsText(validate.errors)}`);
    return this.adapter.invoke({
      serviceId,
      toolId,
      parameters: checked,
      ...(signal ? { signal } : {}),
      ...(accessToken === undefined ? {} : { accessToken }),
    });
  }
}

export type SecretOverrides = Pick<ServiceState, "secretHeaders" | "secretQuery">;

/** The rejection of `promise`, which must reject. */
export async function rejection(promise: Promise<unknown>): Promise<Error & { status?: number; body?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { status?: number; body?: unknown };
  }
  throw new Error("expected a rejection");
}
