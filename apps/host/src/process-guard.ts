/**
 * Containment for `cyrnel start`, installed once by the process entry.
 *
 * Modules are trusted code that runs inside the host process, but a module
 * that ends the process takes every service, process and caller down with it
 * (and, loaded again at the next start, does it again). The host itself never
 * calls `process.exit`: it ends by returning from `main` once its work is
 * done. So while it runs, `process.exit`, `process.reallyExit`,
 * `process.abort` and `process.kill` aimed at the host's own process throw
 * into whoever called them, and each attempt is logged with the caller's
 * stack. Module code that calls them at import or in `setup()` then fails to
 * load or start like any module that throws.
 *
 * What this cannot stop (documented in the README): native code, signals
 * sent from outside (a child process running `kill`), a synchronous endless
 * loop. The module loader's crash marker (module-quarantine.ts) covers
 * those at the next start.
 */
import type { HostLogger } from "./log.js";

export class ProcessExitRefused extends Error {
  constructor(call: string) {
    super(`${call} was refused: module code cannot stop the cyrnel host`);
    this.name = "ProcessExitRefused";
  }
}

type Exit = (code?: number | string | null) => never;

/** Replaces the ways to end the process from JavaScript; returns a function that puts them back. */
export function guardProcessExit(logger: HostLogger): () => void {
  const internals = process as unknown as { reallyExit: Exit; _exiting?: boolean };
  const original = {
    exit: process.exit,
    reallyExit: internals.reallyExit,
    abort: process.abort,
    kill: process.kill,
  };
  const refuse = (call: string): never => {
    const error = new ProcessExitRefused(call);
    logger.error("module code tried to stop the host; refused", {
      call,
      // The frames name the module file that made the call.
      stack: error.stack?.split("\n").slice(2, 8).join("\n"),
    });
    throw error;
  };
  // Once Node itself is exiting (the `exit` event has fired), its own shutdown path must not be blocked.
  const exiting = () => internals._exiting === true;

  process.exit = ((code?: number | string | null) =>
    exiting() ? original.exit.call(process, code) : refuse(`process.exit(${code ?? ""})`)) as typeof process.exit;
  internals.reallyExit = ((code?: number | string | null) =>
    exiting() ? original.reallyExit.call(process, code) : refuse(`process.reallyExit(${code ?? ""})`)) as Exit;
  process.abort = (() => refuse("process.abort()")) as typeof process.abort;
  process.kill = ((pid: number, signal?: string | number) => {
    const self = pid === process.pid || pid === -process.pid || pid === 0;
    if (self && signal !== 0) return refuse(`process.kill(${pid}${signal === undefined ? "" : `, ${signal}`})`);
    return original.kill.call(process, pid, signal);
  }) as typeof process.kill;

  return () => {
    process.exit = original.exit;
    internals.reallyExit = original.reallyExit;
    process.abort = original.abort;
    process.kill = original.kill;
  };
}

/**
 * Logs why the process ended if it ends before start-up finished, so a start
 * never stops silently. The classic silent case is exit code 13: Node ends a
 * process whose entry module awaits a promise that can never settle once
 * nothing else is left to run (no timer, socket or child), and prints nothing.
 * Returns `settled()`, to call once start-up finished or failed with its own log line.
 */
export function reportUnexpectedExit(logger: HostLogger): { settled(): void } {
  let settled = false;
  process.on("exit", (code) => {
    if (settled) return;
    const exitCode = typeof process.exitCode === "number" && process.exitCode !== 0 ? process.exitCode : code;
    logger.error("the host stopped before it finished starting", {
      exitCode,
      reason:
        exitCode === 13
          ? "start-up was waiting on a promise that can never settle and nothing else was left to run " +
            "(e.g. module code that never finishes); the log lines above show how far it got"
          : `the process exited with code ${exitCode}; the lines above say why`,
    });
    if (exitCode === 0) process.exitCode = 1;
  });
  return {
    settled: () => {
      settled = true;
    },
  };
}

/**
 * What module code throws outside any call the host makes — from a timer, a
 * callback, a promise nobody awaits — reaches the process as an uncaught
 * exception or an unhandled rejection, and Node ends the process on either.
 * The host logs it instead and keeps serving; when the stack names a custom
 * module's file (under `modulesDir`), that module is disabled
 * (`disableModule`), so it cannot do it again. A `process.exit` from a timer
 * is refused by `guardProcessExit` and arrives here as such a throw.
 */
export function guardUncaught(
  logger: HostLogger,
  modulesDir: string,
  disableModule: (id: string, reason: string) => void,
): void {
  const moduleFolder = new RegExp(`${escapeRegExp(modulesDir.replace(/\/+$/, ""))}/([^/?#]+)/`);
  const handle = (kind: string) => (thrown: unknown) => {
    try {
      const error = thrown instanceof Error ? thrown : new Error(String(thrown));
      const stack = error.stack ?? "";
      const moduleId = moduleFolder.exec(decodeURIComponent(stack.replaceAll("file://", "")))?.[1];
      logger.error(`${kind} outside any request; the host keeps serving`, {
        error: error.message,
        stack: stack.split("\n").slice(0, 8).join("\n"),
        ...(moduleId !== undefined && { module: moduleId }),
      });
      if (moduleId !== undefined) disableModule(moduleId, `${kind}: ${error.message}`);
    } catch {
      // Never throw from here: that would end the process after all.
    }
  };
  process.on("uncaughtException", handle("an uncaught exception"));
  process.on("unhandledRejection", handle("an unhandled rejection"));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
