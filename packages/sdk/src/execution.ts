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
}

/**
 * The services and tool ids that were effectively enabled when the run was
 * queued, keyed by service id. Environments use it for discovery (e.g.
 * `Object.keys(cyrnel.services)`); every call still goes through the host's
 * gate, so a tool disabled after the snapshot is refused at call time.
 */
export type ServiceCatalog = Record<string, { tools: string[] }>;

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
}
