import type { InvokeInput, JSONSchema, ServiceDefinition, ServiceState, ToolDocsInput } from "./definitions.js";
import type {
  ExecutionExitState,
  ExecutionInput,
  ExecutionState,
  ServiceCatalog,
  ServiceCatalogEntry,
} from "./execution.js";

/** Structured logger handed to modules. Fields are redacted by the host (keys named like secrets, tokens, passwords). */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** What a module receives when it is activated. */
export interface ModuleSetupContext {
  /** The module's own configuration (validated against its `configSchema`, defaults applied). */
  config: Record<string, unknown>;
  /** The module's own decrypted secrets. Keep them in memory only. */
  secrets: Record<string, unknown>;
  logger: Logger;
  /**
   * An adapter reports that one of its services no longer matches its end
   * service (an MCP server announced a changed tool list): the host marks the
   * service `stale` with `reason` — its tools are refused until an operator
   * updates it, and an update regenerates it even from the same definition
   * text. Set by hosts that support it (cyrnel's does); absent elsewhere.
   */
  reportStale?(serviceId: string, reason: string): void;
}

/** Lifecycle shared by every module. */
export interface Module {
  /**
   * Called once when the module is activated (host start with the module
   * enabled, or `POST /modules/:id/enabled`). Throwing leaves it inactive
   * and the error is reported on the module record.
   */
  setup(context: ModuleSetupContext): Promise<void>;
  /** Called on deactivation and on host shutdown. Release pooled resources; must not throw for an idle module. */
  teardown(): Promise<void>;
}

/**
 * Translates service definitions and tool invocations into calls to an end
 * service. Adapters are trusted host code: they run in the host process with
 * its privileges and receive decrypted secrets.
 */
export interface AdapterModule extends Module {
  /**
   * Turn a raw definition text (an OpenAPI document, a custom descriptor, …)
   * into a {@link ServiceDefinition}.
   *
   * Called on direct and registry installs and updates, and for every
   * service of this adapter when the adapter module itself is updated.
   * Must be pure: the same input yields the same definition, with no
   * reliance on instance state. Throw to reject the install; the host
   * returns the message to the caller.
   */
  generateDefinition(input: string): Promise<ServiceDefinition>;
  /**
   * Receive a snapshot of one service: on enable, on a config or secrets
   * patch of an enabled service, and when this adapter is activated while
   * the service is enabled. Replace (never merge) what you kept for
   * `state.id`. Secrets are plaintext: keep them in memory, never log or
   * persist them. Throw to reject; the host rolls the change back.
   */
  hydrateService(state: ServiceState): Promise<void>;
  /**
   * Drop all state for service `id`: on disable, delete, and right before
   * an update replaces its tools. Must be idempotent and must not throw for
   * a service the adapter never saw.
   */
  dehydrateService(id: string): Promise<void>;
  /**
   * Perform one tool call. The host has already checked that the service
   * exists, is enabled and owned by this adapter, that the tool exists and
   * is enabled, and that `parameters` match the tool's `inputSchema`.
   * Throw on any failure (an unknown service or tool included); the message
   * reaches the caller, so never put credentials in it. When the end
   * service answered with a failure, throw an {@link AdapterError} (or any
   * error with a numeric `status` and/or a `body`): the host passes
   * `{ status, body }` on to the caller as the error's `details`, masking
   * the service's secrets and bounding its size.
   */
  invoke(input: InvokeInput): Promise<unknown>;
}

/**
 * Host functions an environment calls while running code. Every call names
 * the execution it belongs to; calls for an execution the host no longer
 * tracks are ignored (or rejected, for `invokeTool`).
 */
export interface EnvironmentBindings {
  /**
   * Call a tool through the host's gate (existence, enabled flags, input
   * validation, the service's policy, then the adapter, bounded by the
   * host's invoke timeout). Under an `ask` policy the promise stays pending
   * until an operator decides, possibly for minutes (see
   * {@link EnvironmentModule.pauseDeadline}). Rejects with an Error carrying
   * `status` and `code` (see {@link ToolCallError}).
   */
  invokeTool(executionId: number, input: InvokeInput): Promise<unknown>;
  /** Report `queued` or `running`; the host owns `idle` and `terminating`. */
  setState(executionId: number, state: ExecutionState): void;
  /** Record why a run failed (compiler message, uncaught error, memory limit, …). */
  setError(executionId: number, message: string): void;
  emitStdout(executionId: number, chunk: string): void;
  emitStderr(executionId: number, chunk: string): void;
  /** Shallow-merge `patch` into the process output. */
  emitOutput(executionId: number, patch: Record<string, unknown>): void;
  /**
   * The tools of one service a run can reach (its effectively enabled
   * ones), with their schemas, for what an environment derives from them
   * (e.g. the declarations it type-checks code against). `toolsJson` is the
   * JSON text of a `ToolDocsInput[]`: text, not objects, because a large
   * API's schemas run to hundreds of megabytes of JSON, which an environment
   * should parse off the host's event loop. It may come in consecutive parts
   * (their concatenation is the text): a host hands a large API's text over
   * in parts, so that no one string of hundreds of megabytes is made on its
   * event loop, and copied again to be handed on. `revision` is the service's
   * {@link ServiceCatalogEntry.revision} the tools are at (newer than a run's
   * catalog when the service changed since). A service that does not exist
   * or cannot be called answers no tools.
   *
   * `toolIds`: only these of its tools (unknown ones are left out), for a
   * service too large to derive everything from at once. A host bounds what
   * it hands out (cyrnel's: `CYRNEL_TYPES_BUDGET_CHARS` of schema JSON) and
   * rejects a larger request with an error whose `code` is
   * `"types_too_large"`; an environment then asks for fewer tools.
   */
  serviceTools(
    serviceId: string,
    toolIds?: readonly string[],
  ): Promise<{ revision: string; toolsJson: string | readonly string[] }>;
  /**
   * A cyrnel extension for durable runs: append entries to the run's replay
   * record, in order. Each entry is the environment's own text (the host
   * stores it and hands it back in {@link ExecutionInput.replay}, never
   * reading it): a value the program read from a nondeterministic source,
   * or which timer or answer reached it next. The host makes the entries
   * durable before it sends any tool call the environment asks for after
   * this call, so an environment records what the program saw before
   * passing on what the program did with it. Environments that do not
   * record never call it.
   */
  recordReplay?(executionId: number, entries: readonly string[]): void;
  /**
   * A cyrnel extension for durable runs: the run now waits for nothing but
   * its timers, the first of which fires at `wakeAt` (milliseconds since
   * the epoch): no tool call of it is in flight and nothing of it is
   * running. Until then only a kill or its deadline can change anything, so
   * the host may let go of a run that sleeps long (stop it, holding nothing)
   * and resume it by replay at `wakeAt`; that is why only environments that
   * record replay (`EnvironmentModule.replays`) call it, each time a run
   * falls asleep.
   */
  sleeping?(executionId: number, wakeAt: number): void;
  /**
   * A cyrnel extension: the environment cut a stream of the run at its own
   * limit, and has dropped `bytes` of it past that so far (a running total;
   * its last call, before the run ends, is exact). A host that has this
   * says so in its own end marker of the stream, with the exact count; an
   * environment then writes no marker line of its own into the stream.
   */
  streamDropped?(executionId: number, stream: "stdout" | "stderr", bytes: number): void;
}

/** Setup context of an environment module: the common context plus the host bindings. */
export interface EnvironmentSetupContext extends ModuleSetupContext {
  bindings: EnvironmentBindings;
}

/**
 * What an environment says about itself in `GET /health`. `degraded` means
 * processes cannot run normally right now (the sandbox is wedged,
 * restarting or unavailable); `reason` says why, in words an operator can
 * act on, and must not contain secrets.
 */
export interface EnvironmentHealth {
  status: "ok" | "degraded";
  reason?: string;
}

/**
 * Whether an environment takes one more execution now. A refusal says when
 * to try again; the host answers the submission `429 at_capacity` with that
 * as `Retry-After` and records nothing.
 */
export type EnvironmentAdmission =
  | { admitted: true }
  | {
      admitted: false;
      /** Whole seconds (at least 1) after which a new submission is likely to be admitted. */
      retryAfterSeconds: number;
      /** Which limit was reached, in words an agent or operator can act on; no secrets. */
      reason: string;
    };

/**
 * What an environment holds right now (a cyrnel extension, see
 * {@link EnvironmentModule.stats}): the host's `GET /metrics` and
 * `GET /stats` report it.
 */
export interface EnvironmentStats {
  /** Executions inside the sandbox now, whatever they are doing (running, awaiting a tool call or a timer). */
  live: number;
  /** Executions waiting for room in front of the sandbox (including any whose code is being checked first). */
  queued: number;
  /** Most executions the sandbox holds at once; null when it sets no such number. */
  maxLive: number | null;
  /** Most executions that may wait for room; null when it sets no such number. */
  maxQueued: number | null;
  /**
   * Resident memory of the sandbox's own processes, in bytes, as last measured (it may lag by a moment); null when
   * the environment does not know it (e.g. it runs code in the host's own process).
   */
  rssBytes: number | null;
}

/**
 * Runs untrusted code. Exactly one environment is active at a time. The
 * environment reports `queued`/`running` through the bindings and resolves
 * `execute` with the exit state; the host owns ids, the timeout backstop,
 * output merging and persistence.
 */
export interface EnvironmentModule extends Module {
  setup(context: EnvironmentSetupContext): Promise<void>;
  /** Run one execution to its end. Resolve (do not reject) with how it ended. */
  execute(input: ExecutionInput): Promise<ExecutionExitState>;
  /** Stop an execution (queued or running); its `execute` then resolves `canceled`. Idempotent. */
  kill(executionId: number): Promise<void>;
  /** Markdown reference of the runtime surface code sees (for humans and LLMs). */
  generateDocs(): Promise<string>;
  /**
   * Markdown reference page for one tool, with a usage snippet in this
   * environment's language. `options` (a cyrnel extension; an environment
   * may ignore it, the host then cuts what is too long) asks for one named
   * type in full and bounds the page's length.
   */
  generateToolDocs(input: ToolDocsInput, options?: ToolDocsOptions): Promise<string>;
  /**
   * Optional (a cyrnel extension): a declaration file typing the runtime
   * surface for the given tools, served at `GET /environment/types`. With
   * `options.maxChars`, a longer file is replaced by a compact index of the
   * tools (see {@link TypesOptions}).
   */
  generateTypes?(tools: ToolDocsInput[], options?: TypesOptions): Promise<string>;
  /**
   * Optional (a cyrnel extension): what {@link generateTypes} answers, for
   * tools given as the JSON text of a `ToolDocsInput` array instead of
   * objects; the text may come as an array of consecutive parts (as
   * {@link EnvironmentBindings.serviceTools} answers), which are joined to
   * read it. The host prefers it when present: it reads the tools' stored
   * schemas as text and never parses them, so an environment can parse and
   * render them off the host's thread (every tool of five large APIs is a
   * few hundred megabytes of schemas: seconds of work, during which the host
   * would answer nothing else). The answer must equal `generateTypes`' for
   * the same tools and options.
   */
  generateTypesFromJson?(toolsJson: string | readonly string[], options?: TypesOptions): Promise<string>;
  /**
   * Optional (a cyrnel extension): the environment's own view of its health,
   * reported by `GET /health`. Called on every health request, possibly
   * while the host is under load: it must be synchronous and cheap (read
   * state the environment already keeps; never wait for its sandbox) and
   * must not throw. Without it the host assumes `ok` while the module is active.
   */
  health?(): EnvironmentHealth;
  /**
   * Optional (a cyrnel extension): whether one more execution would be
   * taken now (run or queued) or is past the environment's capacity. The
   * host asks right before it records a run and, when admitted, calls
   * `execute` before it asks about any other submission, so nothing can
   * take the place in between: an environment that counts its executions
   * synchronously in `execute` needs no reservation. Must be synchronous, cheap and must not
   * throw. Without it every submission is admitted, and an environment past
   * its capacity can only fail the execution.
   */
  admit?(): EnvironmentAdmission;
  /**
   * Optional (a cyrnel extension): what the environment holds right now —
   * executions live and queued, its limits, the sandbox's memory — for the
   * host's metrics and summary (`GET /metrics`, `GET /stats`), read at each
   * scrape. Must be synchronous, cheap (read counters the environment
   * already keeps; never ask its sandbox) and must not throw. Without it
   * those figures are absent.
   */
  stats?(): EnvironmentStats;
  /**
   * Optional (a cyrnel extension): whether the environment records the
   * nondeterministic values its programs read (`EnvironmentBindings.recordReplay`)
   * and gives them back on a resumed run (`ExecutionInput.replay`). A host
   * still resumes the runs of an environment that does not; a program that
   * reads the clock or random numbers may then take another path on replay,
   * which the host detects at the first tool call that differs
   * (`nondeterministic replay`).
   */
  readonly replays?: boolean;
  /**
   * Optional (a cyrnel extension): stop the clock of a running execution's
   * deadline until {@link resumeDeadline}. The host calls it when the run
   * becomes suspended — a tool call of it is waiting for an operator's
   * approval, which may take minutes — and `resumeDeadline` when no call of
   * it is waiting any more; the run then has the time it had left. The run
   * itself goes on meanwhile (its other calls and timers work as usual).
   * Synchronous, cheap, must not throw; a no-op for an execution that is not
   * running. Without these methods the deadline keeps running while a call
   * waits for approval (the host pauses only its own backstop).
   */
  pauseDeadline?(executionId: number): void;
  /** Optional: restart the clock {@link pauseDeadline} stopped, with the time the run had left. */
  resumeDeadline?(executionId: number): void;
  /**
   * Optional (a cyrnel extension): the services runs can reach now (the
   * whole catalog, as a run gets it, at its revisions). The host calls it
   * once the environment is active and again after every change of the
   * catalog (a service installed, updated, enabled, disabled or removed, a
   * tool switched), on this host or another sharing its database. An
   * environment may prepare what it derives from the services' schemas
   * (typescript-ivm: their type declarations) ahead of the first run that
   * needs it, off the request path. Must return at once (start the work in
   * the background) and must not throw; a later call supersedes an earlier.
   */
  prepare?(services: ServiceCatalog): void;
  /**
   * Optional (a cyrnel extension): whether `execute` honours
   * `options.typecheck` (type-checks code before running it). The host
   * refuses a submission that asks for a check (`typecheck: true`) from an
   * environment without it, instead of running the code unchecked.
   */
  readonly supportsTypecheck?: boolean;
}

/**
 * Options of {@link EnvironmentModule.generateTypes} (a cyrnel extension).
 * Without them the environment returns the whole declaration file (the
 * host's own uses, such as type-checking code, need all of it).
 */
export interface TypesOptions {
  /**
   * Most characters the answer may have. When the declarations are longer,
   * return instead an index of the given tools that fits: the services, and
   * each tool's signature with large named types shown by name only.
   */
  maxChars?: number;
  /**
   * One line the index must carry, saying how to ask for less (the host
   * words it for the API that serves the answer, e.g. which filter to use).
   */
  narrowHint?: string;
}

/** Options of {@link EnvironmentModule.generateToolDocs} (a cyrnel extension). */
export interface ToolDocsOptions {
  /**
   * A type named on the page (as the page spells it, e.g. `Address`) to
   * show in full. When the page names no such type, reject with an error
   * whose `code` is `"not_found"` and whose message names it (the host then
   * answers 404 with that message).
   */
  expand?: string;
  /**
   * Most characters the page may have. A longer page shows less (fewer or
   * shallower types) and says, with `expandHint`, how to see the rest.
   */
  maxChars?: number;
  /** How a reader asks for one type in full, worded by the host for its API (e.g. "`?expand=<Type>`"). */
  expandHint?: string;
}

/**
 * Shape of the rejection `invokeTool` produces, mirroring the host's gating
 * table: 404 `not_found`, 409 `service_disabled`/`tool_disabled`, 400
 * `validation_failed`, 403 `tool_denied` (the service's policy refuses the
 * tool), 403 `approval_denied` / `approval_expired` (the call needed an
 * operator's approval and was denied, or not decided in time), 502
 * `adapter_error`, 504 `invoke_timeout`.
 */
export interface ToolCallError extends Error {
  status: number;
  code: string;
  details?: unknown;
}

export const MODULE_TYPES = ["adapter", "environment"] as const;
export type ModuleType = (typeof MODULE_TYPES)[number];

/** The `module.json` of a custom module (built-in modules export the same shape as `manifest`, without `main`). */
export interface ModuleManifest {
  /**
   * Unique module id and, for custom modules, the folder name under
   * `$CYRNEL_DATA_DIR/modules/`: lowercase letters, digits, `.`, `_`, `-`
   * (e.g. `openapi`, `typescript-ivm`).
   */
  id: string;
  name: string;
  description: string;
  type: ModuleType;
  /** Semver version of the module. */
  version: string;
  /** ESM entry file, relative to the module folder, exporting `instantiate()`. Required in `module.json`. */
  main?: string;
  configSchema?: JSONSchema;
  secretsSchema?: JSONSchema;
  /** `cyrnel`: semver range of host versions the module works with. */
  engines?: { cyrnel?: string };
}

/** What a module's entry file exports. */
export interface ModuleFactory {
  instantiate(): AdapterModule | EnvironmentModule | Promise<AdapterModule | EnvironmentModule>;
  /** Built-in modules only: custom modules describe themselves in `module.json`. */
  manifest?: ModuleManifest;
}
