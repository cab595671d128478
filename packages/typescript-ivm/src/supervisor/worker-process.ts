import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { FromWorker, ToWorker, WorkerOptions } from "../ipc.js";

/**
 * The compiled worker entry. When this module itself runs from TypeScript
 * sources (vitest), the worker still has to be plain JavaScript for a bare
 * `node`, so it comes from the package's build output.
 */
function workerEntry(): string {
  const here = import.meta.url;
  const entry = here.endsWith(".ts") ? new URL("../../dist/worker/main.js", here) : new URL("../worker/main.js", here);
  return fileURLToPath(entry);
}

/** What the worker reports besides `ready` and `pong` (which only the process object itself handles). */
export type WorkerMessage = Exclude<FromWorker, { type: "ready" } | { type: "pong" }>;

export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Last lines the worker wrote to stderr (V8 prints its fatal errors there). */
  stderrTail: string;
}

const STDERR_TAIL_CHARS = 4096;

/** One sandbox process: forked with `--no-node-snapshot` (isolated-vm needs it on Node 20+) and no environment. */
export class WorkerProcess {
  /** Resolves on the worker's `ready`; rejects when it exits before that. */
  readonly ready: Promise<void>;
  readonly exited: Promise<WorkerExit>;
  /** Whether it ever reported `ready`. */
  started = false;
  /** Executions currently dispatched to this worker. */
  running = 0;
  /** Executions ever dispatched to this worker. */
  dispatched = 0;
  /** The worker's resident memory as it last reported it (0 before its first report). */
  rssBytes = 0;
  /** Executions dispatched since that report: the estimate adds them to it. */
  dispatchedSinceReport = 0;
  /** Set when the worker reported a catastrophic isolate error (it is then retired). */
  catastrophe: { executionId: number | null; message: string } | null = null;
  /** Set once it takes no new executions (recycling, a catastrophe, teardown); it is ended when its last one has. */
  retired = false;
  /** When the worker last said anything (any message counts, heartbeats included); `performance.now()` time. */
  lastHeard = performance.now();
  /** Set when the watchdog killed it for answering nothing while it had work. */
  stalled = false;
  private readonly child: ChildProcess;
  private stderrTail = "";

  constructor(options: WorkerOptions, onMessage: (message: WorkerMessage) => void) {
    this.child = fork(workerEntry(), [JSON.stringify(options)], {
      execArgv: ["--no-node-snapshot"],
      env: {},
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "json",
    });
    // Only `keepAlive` decides whether this child keeps the host's event loop alive, not its stderr pipe.
    (this.child.stderr as (NodeJS.ReadableStream & { unref?: () => void }) | null)?.unref?.();
    this.child.stderr?.setEncoding("utf8");
    this.child.stderr?.on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => resolve({ code, signal, stderrTail: this.stderrTail.trim() }));
    });
    this.ready = new Promise((resolve, reject) => {
      this.child.on("message", (message: FromWorker) => {
        this.lastHeard = performance.now();
        if (message.type === "ready") {
          this.started = true;
          resolve();
        } else if (message.type !== "pong") onMessage(message);
      });
      void this.exited.then((exit) => reject(new Error(describeExit(exit))));
    });
    // A rejection nobody awaits (a worker that dies before ready) is reported through `exited`.
    this.ready.catch(() => {});
    this.child.on("error", () => {
      // fork errors surface as an exit; the listener keeps them from being thrown.
    });
  }

  /**
   * Whether this process keeps the host's event loop alive: while it starts
   * or has work (someone awaits its answers), not while it idles. A setup
   * the host stopped waiting for (its hook timeout) leaves a worker nobody
   * tears down, and an idle child still referenced (IPC channel included)
   * kept the host alive after its shutdown. An idle worker ends itself once
   * the host is gone (worker/parent-watch.ts).
   */
  keepAlive(alive: boolean): void {
    if (alive) {
      this.child.ref();
      this.child.channel?.ref();
    } else {
      this.child.unref();
      this.child.channel?.unref();
    }
  }

  send(message: ToWorker): void {
    if (this.child.connected) this.child.send(message);
  }

  /** SIGKILL: isolates stuck in V8 cannot be asked politely. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }
}

export function describeExit(exit: WorkerExit): string {
  const how = exit.signal !== null ? `signal ${exit.signal}` : `exit code ${exit.code}`;
  return `the sandbox process ended (${how})`;
}
