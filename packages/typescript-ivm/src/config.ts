import { availableParallelism, totalmem } from "node:os";
import type { JSONSchema } from "@cyrnel/sdk";

/** The module's configuration, with defaults applied. */
export interface EnvironmentConfig {
  maxExecutions: number;
  queueSize: number;
  memoryBudgetMb: number;
  warmIsolates: number;
  memoryLimitMb: number;
  /** Used only when a caller leaves `options.timeoutMs` undefined; `null` means no limit. */
  defaultTimeoutMs: number | null;
  maxTimers: number;
  maxPendingToolCalls: number;
  maxLogBytes: number;
  maxOutputBytes: number;
  watchdogTimeoutMs: number;
  /** Whether code is type-checked before it runs when its execution does not say (`options.typecheck`). */
  typecheck: boolean;
  typecheckTimeoutMs: number;
  typecheckMemoryMb: number;
  /** Type-checker threads; the default depends on the machine ({@link defaultTypecheckThreads}). */
  typecheckThreads: number;
}

/** The longest delay Node's timers take (2^31 - 1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

interface IntegerOption {
  description: string;
  minimum: number;
  maximum: number;
  default: number;
}

const INTEGER_OPTIONS = {
  maxExecutions: {
    description:
      "Executions in the sandbox at the same time, each in an isolate of its own (most of them usually just awaiting a tool call or a timer); more wait in the queue.",
    minimum: 1,
    maximum: 100_000,
    default: 500,
  },
  queueSize: {
    description:
      "Executions that may wait for room in the sandbox (maxExecutions or memoryBudgetMb reached); past it a submission is refused with 429 at_capacity.",
    minimum: 0,
    maximum: 100_000,
    default: 500,
  },
  memoryBudgetMb: {
    description:
      "Resident memory of the sandbox process in MB. New executions wait while it is reached; if it keeps growing past it, the execution with the largest heap fails; once idle above it, the process is replaced.",
    minimum: 64,
    maximum: 1024 * 1024,
    default: 1024,
  },
  warmIsolates: {
    description: "Fresh isolates kept ready, so that an execution rarely waits for one to be created.",
    minimum: 0,
    maximum: 1000,
    default: 4,
  },
  memoryLimitMb: {
    description: "Heap limit of each isolate in MB. Code that exceeds it fails with a memory-limit error.",
    minimum: 8,
    maximum: 8192,
    default: 128,
  },
  maxTimers: {
    description: "Pending setTimeout timers per execution.",
    minimum: 1,
    maximum: 100_000,
    default: 1000,
  },
  maxPendingToolCalls: {
    description: "Tool calls one execution may have in flight at the same time.",
    minimum: 1,
    maximum: 100_000,
    default: 256,
  },
  maxLogBytes: {
    description: "Bytes of stdout and of stderr (each) forwarded per execution; the rest is cut with a marker line.",
    minimum: 1024,
    maximum: 1024 * 1024 * 1024,
    default: 1024 * 1024,
  },
  maxOutputBytes: {
    description: "Size of the merged cyrnel.output() JSON per execution; exceeding it fails the execution.",
    minimum: 1024,
    maximum: 1024 * 1024 * 1024,
    default: 1024 * 1024,
  },
  watchdogTimeoutMs: {
    description:
      "How long the sandbox process may go without answering while it has work before it is killed and replaced (its running executions fail).",
    minimum: 500,
    maximum: 3_600_000,
    default: 10_000,
  },
  typecheckTimeoutMs: {
    description:
      "Time one type check may take (the code's own check, not preparing a changed service's declarations). Code whose check takes longer fails without running; the checker is restarted.",
    minimum: 100,
    maximum: 600_000,
    default: 5_000,
  },
  typecheckMemoryMb: {
    description:
      "Heap limit of the type checker in MB (it holds the declarations of every service). Code whose check exceeds it fails without running; the checker is restarted.",
    minimum: 64,
    maximum: 16_384,
    default: 512,
  },
} satisfies Record<
  Exclude<keyof EnvironmentConfig, "defaultTimeoutMs" | "typecheck" | "typecheckThreads">,
  IntegerOption
>;

/** Most type-checker threads by default, however large the machine: each holds every service's declarations. */
const MAX_DEFAULT_TYPECHECK_THREADS = 4;
const MAX_TYPECHECK_THREADS = 64;

/**
 * Type-checker threads when the config does not say: one per core, at most
 * {@link MAX_DEFAULT_TYPECHECK_THREADS}, and no more than fit in a quarter
 * of the machine's memory at `typecheckMemoryMb` each (a thread reaches its
 * heap limit only on pathological code, but several callers can send such
 * code at once). So 2 on a 2-core machine with 4 GB, 1 with 2 GB.
 */
export function defaultTypecheckThreads(memoryMb: number): number {
  const byMemory = Math.floor(totalmem() / 4 / (memoryMb * 1024 * 1024));
  return Math.max(1, Math.min(MAX_DEFAULT_TYPECHECK_THREADS, availableParallelism(), byMemory));
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Keys of earlier versions, still accepted so that a stored config keeps
 * activating after an upgrade, and ignored: the pool of `poolSize` isolates
 * gave way to `maxExecutions` and `warmIsolates`, and `maxWorkerRssMb` to
 * `memoryBudgetMb`.
 */
export const DEPRECATED_OPTIONS = {
  poolSize:
    "Deprecated and ignored: executions are admitted by maxExecutions and memoryBudgetMb; spares by warmIsolates.",
  maxWorkerRssMb: "Deprecated and ignored: see memoryBudgetMb.",
} as const;

export const CONFIG_SCHEMA: JSONSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    ...Object.fromEntries(
      Object.entries(DEPRECATED_OPTIONS).map(([name, description]) => [
        name,
        { type: "integer", deprecated: true, description },
      ]),
    ),
    ...Object.fromEntries(
      Object.entries(INTEGER_OPTIONS).map(([name, option]) => [name, { type: "integer", ...option }]),
    ),
    defaultTimeoutMs: {
      type: ["integer", "null"],
      minimum: 1,
      maximum: MAX_TIMEOUT_MS,
      default: DEFAULT_TIMEOUT_MS,
      description:
        "Wall-clock limit for executions whose options leave timeoutMs undefined (the host normally always sets it). null: no limit.",
    },
    typecheckThreads: {
      type: "integer",
      minimum: 1,
      maximum: MAX_TYPECHECK_THREADS,
      // This machine's default at the default heap (a larger typecheckMemoryMb may lower it).
      default: defaultTypecheckThreads(INTEGER_OPTIONS.typecheckMemoryMb.default),
      description: `Type-checker threads, each with a heap of typecheckMemoryMb. Callers (keys) are served in turn, and one caller holds at most all threads but one. Default: one per core, at most ${MAX_DEFAULT_TYPECHECK_THREADS}, and no more than fit in a quarter of the machine's memory.`,
    },
    typecheck: {
      type: "boolean",
      default: true,
      description:
        "Type-check code against the types of the services it can reach before running it, when the submission does not say (its `typecheck` field). Code with type errors fails without running.",
    },
  },
};

/** Applies defaults and rejects out-of-range values with a message naming the key. */
export function parseConfig(raw: Record<string, unknown>): EnvironmentConfig {
  const integer = (name: keyof typeof INTEGER_OPTIONS): number => {
    const option: IntegerOption = INTEGER_OPTIONS[name];
    const value = raw[name] ?? option.default;
    if (typeof value !== "number" || !Number.isInteger(value) || value < option.minimum || value > option.maximum) {
      throw new Error(
        `typescript-ivm config: ${name} must be an integer from ${option.minimum} to ${option.maximum}, got ${JSON.stringify(value)}`,
      );
    }
    return value;
  };
  let defaultTimeoutMs: number | null = DEFAULT_TIMEOUT_MS;
  if (raw.defaultTimeoutMs !== undefined) {
    const value = raw.defaultTimeoutMs;
    if (
      value !== null &&
      (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_TIMEOUT_MS)
    ) {
      throw new Error(
        `typescript-ivm config: defaultTimeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS} or null, got ${JSON.stringify(value)}`,
      );
    }
    defaultTimeoutMs = value;
  }
  const typecheck = raw.typecheck ?? true;
  if (typeof typecheck !== "boolean") {
    throw new Error(`typescript-ivm config: typecheck must be true or false, got ${JSON.stringify(typecheck)}`);
  }
  const typecheckMemoryMb = integer("typecheckMemoryMb");
  const typecheckThreads = raw.typecheckThreads ?? defaultTypecheckThreads(typecheckMemoryMb);
  if (
    typeof typecheckThreads !== "number" ||
    !Number.isInteger(typecheckThreads) ||
    typecheckThreads < 1 ||
    typecheckThreads > MAX_TYPECHECK_THREADS
  ) {
    throw new Error(
      `typescript-ivm config: typecheckThreads must be an integer from 1 to ${MAX_TYPECHECK_THREADS}, got ${JSON.stringify(typecheckThreads)}`,
    );
  }
  return {
    maxExecutions: integer("maxExecutions"),
    queueSize: integer("queueSize"),
    memoryBudgetMb: integer("memoryBudgetMb"),
    warmIsolates: integer("warmIsolates"),
    memoryLimitMb: integer("memoryLimitMb"),
    defaultTimeoutMs,
    maxTimers: integer("maxTimers"),
    maxPendingToolCalls: integer("maxPendingToolCalls"),
    maxLogBytes: integer("maxLogBytes"),
    maxOutputBytes: integer("maxOutputBytes"),
    watchdogTimeoutMs: integer("watchdogTimeoutMs"),
    typecheck,
    typecheckTimeoutMs: integer("typecheckTimeoutMs"),
    typecheckMemoryMb,
    typecheckThreads,
  };
}
