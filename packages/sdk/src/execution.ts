/** States an environment reports for an execution (the host adds `idle`, `terminating` and `suspended`). */
export const EXECUTION_STATES = ["queued", "running"] as const;
export type ExecutionState = (typeof EXECUTION_STATES)[number];

/** How an execution ended; an environment's `execute` resolves with one of these. */
export const EXECUTION_EXIT_STATES = ["failed", "success", "timeout", "canceled"] as const;
export type ExecutionExitState = (typeof EXECUTION_EXIT_STATES)[number];

/** Per-execution options decided by the host. */
export interface ExecutionOptions {
  /**
   * Wall-clock budget of the run in milliseconds, from the moment it starts
   * running; `null` means no limit. At most 2^31 - 1 (the host refuses
   * more). A run still waiting for a sandbox may wait at most this long too:
   * then it ends `timeout` without having run.
   */
  timeoutMs: number | null;
  /**
   * Whether to type-check the code before it runs (a cyrnel extension):
   * `true` checks it against the types of the tools in
   * {@link ExecutionInput.services} and, on errors, ends the run `failed`
   * without running anything; `false` runs it unchecked; absent leaves it to
   * the environment's default. Environments that cannot check ignore it (see
   * `EnvironmentModule.supportsTypecheck`).
   */
  typecheck?: boolean;
}

/**
 * The services and tool ids the run can reach, as they were when it was
 * queued (the effectively enabled ones its key may call), keyed by service id.
 * Environments use it for discovery (e.g. `Object.keys(cyrnel.services)`)
 * and to know which types code is checked against; every call still goes
 * through the host's gate, so a tool disabled after the snapshot is refused
 * at call time.
 */
export type ServiceCatalog = Record<string, ServiceCatalogEntry>;

export interface ServiceCatalogEntry {
  /** Ids of the tools the run can reach on this service. */
  tools: string[];
  /**
   * Opaque; changes whenever the service's tools or their schemas change
   * (an update, a tool enabled or disabled). An environment may keep what it
   * derives from a service's schemas (e.g. type declarations, see
   * `EnvironmentBindings.serviceTools`) for as long as it stays the same.
   */
  revision: string;
  /**
   * Optional (a cyrnel extension): those of `tools` the service's policy
   * denies (every call fails with `403 tool_denied`). An environment that
   * checks code before it runs may refuse a call to one then, before any
   * earlier call of the run is made. Absent: none.
   */
  denied?: string[];
}

/** One run of a process. A process that is run again gets a new `executionId`. */
export interface ExecutionInput {
  /** Unique per run; every binding call names it. */
  executionId: number;
  /** The process this run belongs to (stable across re-runs). */
  processId: number;
  /** The source submitted by the client. */
  code: string;
  options: ExecutionOptions;
  /** Discovery snapshot (a cyrnel extension to the original notes; see {@link ServiceCatalog}). */
  services: ServiceCatalog;
  /**
   * Who submitted the run, as an opaque id (cyrnel's host: the key's id, or
   * one constant for runs without a stored key). Environments share work
   * that is scarce across runs — such as type-checking code before it runs —
   * fairly between callers, so that one caller's heavy submissions cannot
   * hold up another's. Absent: every such run counts as one caller.
   */
  caller?: string;
  /**
   * A cyrnel extension for durable runs: set when this run resumes one that
   * an earlier attempt started (its host died, or it was evicted while it
   * waited for an approval). These are the entries the environment recorded
   * through {@link EnvironmentBindings.recordReplay} on the earlier attempts,
   * in order. The host runs the program again from the start and answers its
   * tool calls from its journal; the environment gives the program the same
   * nondeterministic values (clock, random numbers, the order in which
   * timers and answers arrive) it recorded, then records new ones once the
   * entries run out. Absent: a first attempt. Environments that do not
   * record (see `EnvironmentModule.replays`) ignore it.
   */
  replay?: readonly string[];
}
