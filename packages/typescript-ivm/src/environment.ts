import type {
  EnvironmentAdmission,
  EnvironmentHealth,
  EnvironmentModule,
  EnvironmentSetupContext,
  EnvironmentStats,
  ExecutionExitState,
  ExecutionInput,
  ServiceCatalog,
  ToolDocsInput,
  ToolDocsOptions,
  TypesOptions,
} from "@cyrnel/sdk";
import { renderTypesFromJson } from "./checker/render-tools.js";
import { parseConfig } from "./config.js";
import { renderRuntimeDocs } from "./docs/runtime-docs.js";
import { renderToolDocs } from "./docs/tool-docs.js";
import { renderTypes } from "./docs/types-file.js";
import { jsonLength, MAX_INLINE_RENDER_CHARS, typesInThread } from "./supervisor/checker-thread.js";
import { Supervisor } from "./supervisor/supervisor.js";

/** The `typescript-ivm` environment: TypeScript run in isolated-vm sandboxes, a fresh isolate per execution. */
export class TypeScriptIvmEnvironment implements EnvironmentModule {
  /** Code is type-checked before it runs (see supervisor/type-checks.ts); the module's `typecheck` config is the default. */
  readonly supportsTypecheck = true;
  /**
   * Durable runs: the clock, random numbers and the order in which answers
   * and timers reach the program are recorded (`bindings.recordReplay`)
   * and given back on a resumed run (see sandbox/prelude.ts and
   * worker/replay-order.ts).
   */
  readonly replays = true;
  private supervisor: Supervisor | null = null;
  /**
   * The supervisor of a setup still waiting for its sandbox process. The host
   * may have stopped waiting for that setup (its hook timeout); the next
   * setup or teardown still ends it, so one instance never runs two sandboxes.
   */
  private starting: Supervisor | null = null;
  private limits = parseConfig({});
  /** Aborted by a teardown: renders of `generateTypesFromJson` still going end with it. */
  private docsClosing = new AbortController();

  async setup(context: EnvironmentSetupContext): Promise<void> {
    const config = parseConfig(context.config);
    await this.teardown();
    const supervisor = new Supervisor(config, context.bindings, context.logger);
    this.starting = supervisor;
    try {
      await supervisor.start();
      if (supervisor.isClosed) throw new Error("torn down while starting");
    } catch (error) {
      await supervisor.close();
      throw new Error(`typescript-ivm: the sandbox process did not start: ${(error as Error).message}`);
    } finally {
      if (this.starting === supervisor) this.starting = null;
    }
    this.limits = config;
    this.supervisor = supervisor;
  }

  async teardown(): Promise<void> {
    this.docsClosing.abort();
    this.docsClosing = new AbortController();
    const supervisors = [this.supervisor, this.starting];
    this.supervisor = null;
    this.starting = null;
    await Promise.all(supervisors.map((supervisor) => supervisor?.close()));
  }

  async execute(input: ExecutionInput): Promise<ExecutionExitState> {
    // Without setup there are no bindings to report through; the host sees a plain failure.
    if (this.supervisor === null) return "failed";
    return this.supervisor.execute(input);
  }

  admit(): EnvironmentAdmission {
    // Without a sandbox `execute` fails the run with the reason; a 429 would only hide it.
    return this.supervisor?.admit() ?? { admitted: true };
  }

  stats(): EnvironmentStats {
    return (
      this.supervisor?.stats() ?? {
        live: 0,
        queued: 0,
        maxLive: this.limits.maxExecutions,
        maxQueued: this.limits.queueSize,
        rssBytes: null,
      }
    );
  }

  /** Prepares the declarations of the services runs can reach, ahead of the first check that needs them. */
  prepare(services: ServiceCatalog): void {
    this.supervisor?.prepare(services);
  }

  async kill(executionId: number): Promise<void> {
    this.supervisor?.kill(executionId);
  }

  pauseDeadline(executionId: number): void {
    this.supervisor?.deadline(executionId, "pause");
  }

  resumeDeadline(executionId: number): void {
    this.supervisor?.deadline(executionId, "resume");
  }

  health(): EnvironmentHealth {
    return this.supervisor?.health() ?? { status: "degraded", reason: "typescript-ivm is not set up" };
  }

  async generateDocs(): Promise<string> {
    return renderRuntimeDocs(this.limits);
  }

  async generateToolDocs(input: ToolDocsInput, options?: ToolDocsOptions): Promise<string> {
    return renderToolDocs(input, options);
  }

  async generateTypes(tools: ToolDocsInput[], options?: TypesOptions): Promise<string> {
    return renderTypes(tools, options);
  }

  /**
   * What `generateTypes` answers, from the tools' JSON: parsed and rendered
   * in a render thread (every tool of five large APIs took the host's event
   * loop 3–5 s), or here when it is small (sooner than a thread loads).
   */
  async generateTypesFromJson(toolsJson: string | readonly string[], options: TypesOptions = {}): Promise<string> {
    if (jsonLength(toolsJson) <= MAX_INLINE_RENDER_CHARS) {
      return renderTypesFromJson(typeof toolsJson === "string" ? toolsJson : toolsJson.join(""), options);
    }
    return typesInThread(toolsJson, options, this.docsClosing.signal);
  }
}
