/** How a hostile program's run ended, as the host records it. */
export interface ProgramResult {
  exit: string;
  /** The run's error message; null when it succeeded. */
  error: string | null;
  output: Record<string, any>;
  stdout: string;
  stderr: string;
}

export interface HostileProgram {
  label: string;
  /** TypeScript, as submitted to the sandbox. */
  code: string;
  /** Set where the deadline is under test; otherwise the runner picks a generous one. */
  timeoutMs?: number;
  /** Throws (vitest `expect`) when the run did not end as it must. */
  check(result: ProgramResult): void;
}

export const STANDARD_GLOBALS: Set<string>;
export const SANDBOX_GLOBALS: string[];
export const ESCAPES: readonly HostileProgram[];
export const STACK_TRACES: readonly HostileProgram[];
export const GATE_NAMES: readonly HostileProgram[];
export const SABOTAGE: readonly HostileProgram[];
export const NON_ERRORS: readonly HostileProgram[];
export const SERIALISATION: readonly HostileProgram[];
export const RESOURCE_ABUSE: readonly HostileProgram[];
export const HOSTILE_PROGRAMS: readonly HostileProgram[];
