/**
 * Every message this module passes to `bindings.setError`, in one place so
 * the formats stay stable (the host stores them as the process `error`).
 * Uncaught errors are formatted inside the sandbox (see the prelude):
 * `Uncaught <Name>: <message>[ (status S, code C)]` followed by the user's
 * stack frames, or `Uncaught <value>` for thrown non-Errors. Syntax errors
 * come from transpile.ts: `SyntaxError: <message> (line L, column C)`.
 */

/** One thing a program awaited: a tool call (`shop.getItem`) or a timer, and the user's line that started it. */
export interface Wait {
  what: string;
  at: string;
}

/** Where a timed-out program was: running without awaiting (`busy`), or awaiting `waits` (none known: a promise). */
export interface Where {
  busy: boolean;
  waits: Wait[];
}

/** Listed in a timeout's message; past it, "and N more". */
const MAX_LISTED_WAITS = 3;

export const timedOut = (timeoutMs: number, where?: Where) => {
  const head = `Timed out after ${timeoutMs} ms`;
  if (where === undefined) return head;
  if (where.busy) return `${head} while the code was running without awaiting anything (a loop, or a long computation)`;
  if (where.waits.length === 0) {
    return `${head} while awaiting a promise that nothing settles (no tool call or timer was pending)`;
  }
  const listed = where.waits.slice(0, MAX_LISTED_WAITS).map(({ what, at }) => (at === "" ? what : `${what} (${at})`));
  const more = where.waits.length - listed.length;
  return `${head} while awaiting ${listed.join(", ")}${more > 0 ? `, and ${more} more` : ""}`;
};

/** A queued execution may wait for room in the sandbox at most its own timeoutMs (then it gets all of it to run). */
export const timedOutInQueue = (timeoutMs: number) =>
  `Timed out after ${timeoutMs} ms waiting in the queue: the sandbox was at capacity, so the code never ran`;

export const memoryLimitExceeded = (limitMb: number) =>
  `Memory limit exceeded: the code used more than the ${limitMb} MB heap limit of its isolate`;

/** Why a submission is refused (the host answers it `429 at_capacity`, or the execution fails with it). */
export const atCapacity = (live: number, queueSize: number, memoryBound: boolean) =>
  `typescript-ivm is at capacity: ${plural(live, "execution")} in the sandbox${
    memoryBound ? " (its memory budget is reached)" : ""
  } and ${queueSize} waiting in the queue`;

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

/** The execution the memory guard failed: the sandbox process outgrew its budget and this isolate was the largest. */
export const memoryBudgetExceeded = (budgetMb: number, rssMb: number, heapMb: number) =>
  `Memory budget exceeded: the sandbox process grew to ${rssMb} MB, past its budget of ${budgetMb} MB, and this execution's isolate was the largest (${heapMb} MB)`;

/** Type checks (supervisor/type-checks.ts): what ends code before it runs, and the notes on code that runs unchecked. */
const RUN_UNCHECKED = 'submit it with "typecheck": false to run it unchecked';

export const typecheckTimedOut = (budgetMs: number) =>
  `Type check did not finish within its budget of ${budgetMs} ms (typecheckTimeoutMs), so the code did not run: simplify the types it uses, or ${RUN_UNCHECKED}`;

export const typecheckOutOfMemory = (limitMb: number) =>
  `Type check ran out of memory (the checker's ${limitMb} MB heap limit, typecheckMemoryMb), so the code did not run: simplify the types it uses, or ${RUN_UNCHECKED}`;

/** A program of a batch that failed as a whole, not checked again once its re-checks had found enough culprits. */
export const typecheckNotRetried = (budgetMs: number) =>
  `Type check did not finish: the code was checked together with other code of the same caller that ran past the checker's budget of ${budgetMs} ms (typecheckTimeoutMs), and was not checked again on its own, so it did not run: submit it again, or ${RUN_UNCHECKED}`;

export const typecheckCrashed = (message: string) =>
  `Type check failed in the compiler (${clampMessage(message, 500)}), so the code did not run: ${RUN_UNCHECKED}`;

/** A queued execution's deadline passed while its types were being checked; `phase` says what the check was doing (CheckProgress). */
export const timedOutWhileChecking = (timeoutMs: number, phase: string) =>
  `Timed out after ${timeoutMs} ms in the type check while ${phase || "starting it"}, so the code never ran: submit it again (what was prepared is kept), give it a longer timeoutMs, or ${RUN_UNCHECKED}`;

export const typecheckUnavailable = (reason: string) =>
  `[cyrnel] the code was not type-checked: the type checker is unavailable (${clampMessage(reason, 500)})\n`;

export const serviceNotTypeChecked = (serviceId: string, reason: string) =>
  `[cyrnel] calls to service ${JSON.stringify(serviceId)} were not type-checked: its types are unavailable (${clampMessage(reason, 500)})\n`;

export const duplicateExecution = (executionId: number) => `Execution ${executionId} is already queued or running`;

export const outputTooLarge = (limitBytes: number) =>
  `Output limit exceeded: the merged cyrnel.output() data is larger than ${limitBytes} bytes`;

/** The run whose isolate V8 could not recover (isolated-vm's "catastrophic" out-of-memory path). */
export const memoryCatastrophe = (limitMb: number) =>
  `${memoryLimitExceeded(limitMb)} (V8 could not recover the isolate, so its sandbox process is being replaced)`;

/** Only when a sandbox process that lost an isolate had to end before this execution did (see supervisor.ts). */
export const interruptedByCatastrophe = () =>
  "Interrupted: the sandbox process was restarted because another execution exhausted its isolate's memory";

export const interruptedByExit = (how: string) => `Interrupted: ${how} while this execution was running`;

/** The supervisor's watchdog killed a sandbox process that had work but answered nothing (see supervisor.ts). */
export const interruptedByStall = (watchdogTimeoutMs: number) =>
  `Interrupted: the sandbox process stopped responding for more than ${watchdogTimeoutMs} ms, so it was restarted`;

export const workerUnavailable = (reason: string) => `typescript-ivm cannot run code: ${reason}`;

/** A promise of the code's own (not a tool call's) rejected with nobody awaiting or catching it, which ends the run. */
export const unhandledRejection = (name: string, message: string) =>
  `Uncaught (in promise) ${name}: ${message} (a promise nobody awaited or caught was rejected)`;

/**
 * A resumed durable run whose program did something else than the record of
 * its earlier attempts has next (see sandbox/prelude.ts): the values it was
 * given back can no longer stand for what it saw.
 */
export const nondeterministicReplay = (had: string, did: string) =>
  `nondeterministic replay: the record has ${had} next, but the program ${did}`;

export const isolateFailed = (reason: string) => `The sandbox isolate failed: ${reason}`;

/** Appended to stdout or stderr once, when the stream reaches its limit. */
export const logTruncated = (stream: string, limitBytes: number) =>
  `[cyrnel] ${stream} truncated: more than ${limitBytes} bytes\n`;

/** Keeps a sandbox-provided message from growing the host's error column without bound. */
export function clampMessage(message: string, maxLength = 16 * 1024): string {
  return message.length <= maxLength ? message : `${message.slice(0, maxLength)}… (truncated)`;
}
