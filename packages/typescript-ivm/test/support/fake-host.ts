import { createHash } from "node:crypto";
import type {
  EnvironmentBindings,
  EnvironmentModule,
  ExecutionExitState,
  ExecutionState,
  InvokeInput,
  Logger,
  ServiceCatalog,
  ToolDocsInput,
} from "@cyrnel/sdk";
import { instantiate } from "../../src/index.js";

/** What the fake host recorded for one execution. */
export interface Recorded {
  states: ExecutionState[];
  errors: string[];
  stdout: string;
  stderr: string;
  output: Record<string, unknown>;
  outputCalls: number;
}

export interface RunResult extends Recorded {
  exit: ExecutionExitState;
  elapsedMs: number;
}

/** A gate shaped like the host's: status + stable code on an Error (see ToolCallError). */
export class GateError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export interface FakeTool {
  enabled: boolean;
  /** The real work: usually an HTTP call to the tool server. */
  call(parameters: Record<string, unknown>): Promise<unknown>;
  /** Names of required parameters (a stand-in for the host's ajv validation). */
  required?: string[];
  /** Schemas the tool's types are made from (type checks); default: any object in, anything out. */
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export interface FakeService {
  enabled: boolean;
  tools: Record<string, FakeTool>;
}

/**
 * A tiny host implementing EnvironmentBindings: records what the
 * environment reports and gates tool calls like the host's tool gate (404, 409,
 * 400, 502), then calls the tool (a real HTTP request in most tests).
 */
export class FakeHost implements EnvironmentBindings {
  readonly records = new Map<number, Recorded>();
  readonly logs: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  readonly services: Record<string, FakeService> = {};
  /** Tool calls that reached `call` (passed the gate). */
  readonly calls: InvokeInput[] = [];
  private nextId = 1;
  env: EnvironmentModule | null = null;

  private readonly log =
    (level: keyof Logger) =>
    (message: string, fields?: Record<string, unknown>): void => {
      this.logs.push({ level, message, ...(fields ? { fields } : {}) });
    };

  readonly logger: Logger = {
    debug: this.log("debug"),
    info: this.log("info"),
    warn: this.log("warn"),
    error: this.log("error"),
  };

  record(executionId: number): Recorded {
    let entry = this.records.get(executionId);
    if (entry === undefined) {
      entry = { states: [], errors: [], stdout: "", stderr: "", output: {}, outputCalls: 0 };
      this.records.set(executionId, entry);
    }
    return entry;
  }

  async invokeTool(_executionId: number, input: InvokeInput): Promise<unknown> {
    const service = Object.hasOwn(this.services, input.serviceId) ? this.services[input.serviceId] : undefined;
    if (service === undefined) throw new GateError(404, "not_found", `Service '${input.serviceId}' not found`);
    const tool = Object.hasOwn(service.tools, input.toolId) ? service.tools[input.toolId] : undefined;
    if (tool === undefined) {
      throw new GateError(404, "not_found", `Tool '${input.toolId}' not found on service '${input.serviceId}'`);
    }
    if (!service.enabled) throw new GateError(409, "service_disabled", `Service '${input.serviceId}' is disabled`);
    if (!tool.enabled) {
      throw new GateError(409, "tool_disabled", `Tool '${input.toolId}' on service '${input.serviceId}' is disabled`);
    }
    const missing = (tool.required ?? []).filter((name) => !(name in input.parameters));
    if (missing.length > 0) {
      throw new GateError(
        400,
        "validation_failed",
        `Invalid parameters: missing ${missing.join(", ")}`,
        missing.map((name) => ({ instancePath: "", keyword: "required", params: { missingProperty: name } })),
      );
    }
    this.calls.push(input);
    try {
      return await tool.call(input.parameters);
    } catch (error) {
      throw new GateError(502, "adapter_error", error instanceof Error ? error.message : String(error));
    }
  }

  setState(executionId: number, state: ExecutionState): void {
    this.record(executionId).states.push(state);
  }

  setError(executionId: number, message: string): void {
    this.record(executionId).errors.push(message);
  }

  emitStdout(executionId: number, chunk: string): void {
    this.record(executionId).stdout += chunk;
  }

  emitStderr(executionId: number, chunk: string): void {
    this.record(executionId).stderr += chunk;
  }

  emitOutput(executionId: number, patch: Record<string, unknown>): void {
    const entry = this.record(executionId);
    // In place: a copy per call would make thousands of calls quadratic.
    Object.assign(entry.output, patch);
    entry.outputCalls++;
  }

  /** Services whose tools `serviceTools` answered, in order (to see what the environment asks for). */
  readonly toolRequests: string[] = [];
  /** The `toolIds` of each request that named tools, in order. */
  readonly namedToolRequests: { serviceId: string; toolIds: readonly string[] }[] = [];

  /** Like the host: the effectively enabled tools (or those of `toolIds`) with their schemas, as JSON text, at the service's revision. */
  async serviceTools(serviceId: string, toolIds?: readonly string[]): Promise<{ revision: string; toolsJson: string }> {
    this.toolRequests.push(serviceId);
    let tools = this.toolDocs(serviceId);
    if (toolIds !== undefined) {
      this.namedToolRequests.push({ serviceId, toolIds });
      tools = tools.filter((tool) => toolIds.includes(tool.toolId));
    }
    return { revision: this.revisionOf(serviceId), toolsJson: JSON.stringify(tools) };
  }

  /** The discovery snapshot the host would pass: effectively enabled services and tools. */
  catalog(): ServiceCatalog {
    const catalog: ServiceCatalog = {};
    for (const [serviceId, service] of Object.entries(this.services)) {
      if (!service.enabled) continue;
      catalog[serviceId] = {
        tools: this.toolDocs(serviceId).map((tool) => tool.toolId),
        revision: this.revisionOf(serviceId),
      };
    }
    return catalog;
  }

  private toolDocs(serviceId: string): ToolDocsInput[] {
    const service = Object.hasOwn(this.services, serviceId) ? this.services[serviceId] : undefined;
    if (service === undefined || !service.enabled) return [];
    return Object.entries(service.tools)
      .filter(([, tool]) => tool.enabled)
      .map(([toolId, tool]) => ({
        serviceId,
        toolId,
        description: "",
        inputSchema: tool.inputSchema ?? { type: "object" },
        outputSchema: tool.outputSchema ?? {},
      }));
  }

  /** Changes whenever what the service's types are made from changes, as the host's revision does. */
  private revisionOf(serviceId: string): string {
    return createHash("sha256")
      .update(JSON.stringify(this.toolDocs(serviceId)))
      .digest("hex");
  }

  /** Sets the environment up; code is not type-checked unless `config` or a submission says so (test/typecheck.test.ts is about checks). */
  async start(config: Record<string, unknown> = {}): Promise<EnvironmentModule> {
    const env = instantiate();
    await env.setup({ config: { typecheck: false, ...config }, secrets: {}, logger: this.logger, bindings: this });
    this.env = env;
    return env;
  }

  async stop(): Promise<void> {
    await this.env?.teardown();
    this.env = null;
  }

  newId(): number {
    return this.nextId++;
  }

  /** Starts an execution; `result` settles with what was recorded once it ends. */
  submit(
    code: string,
    options: { timeoutMs?: number | null; services?: ServiceCatalog; executionId?: number; typecheck?: boolean } = {},
  ): { executionId: number; result: Promise<RunResult> } {
    const env = this.env;
    if (env === null) throw new Error("FakeHost.start() first");
    const executionId = options.executionId ?? this.newId();
    const started = performance.now();
    const result = env
      .execute({
        executionId,
        processId: executionId,
        code,
        // Generous: a deadline no test is about must not end runs early on a loaded machine.
        options: {
          timeoutMs: options.timeoutMs === undefined ? 60_000 : options.timeoutMs,
          ...(options.typecheck === undefined ? {} : { typecheck: options.typecheck }),
        },
        services: options.services ?? this.catalog(),
      })
      .then((exit) => ({ ...this.record(executionId), exit, elapsedMs: performance.now() - started }));
    return { executionId, result };
  }

  run(
    code: string,
    options: { timeoutMs?: number | null; services?: ServiceCatalog; typecheck?: boolean } = {},
  ): Promise<RunResult> {
    return this.submit(code, options).result;
  }
}

/** Resolves once `predicate` holds (checked every few milliseconds), for explicit waits on state. */
export async function waitFor(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("waitFor: condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** A service whose tools call the tool server over HTTP. */
export function httpService(baseUrl: string): FakeService {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const payload = await response.json();
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${(payload as { message?: string }).message}`);
    return payload;
  };
  return {
    enabled: true,
    tools: {
      echo: { enabled: true, call: (parameters) => post("/echo", parameters) },
      slow: { enabled: true, call: (parameters) => post("/slow", parameters), required: ["ms"] },
      gather: { enabled: true, call: (parameters) => post("/gather", parameters), required: ["size", "capMs"] },
      fail: { enabled: true, call: (parameters) => post("/fail", parameters) },
      off: { enabled: false, call: (parameters) => post("/echo", parameters) },
    },
  };
}
