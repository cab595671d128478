import { type ChildProcess, spawn } from "node:child_process";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * An MCP stdio transport over a child process this adapter spawns itself.
 *
 * Why not the SDK's `StdioClientTransport`: it always merges six variables
 * of the host's own environment (`HOME`, `PATH`, `USER`, …) into the child's,
 * and an operator's rule here is "the child gets only what I gave it"
 * (`env.ts`). It also signals only the process it started, while `npx …`
 * runs the real server as a grandchild: this one starts the child in its own
 * process group (`detached`) and signals the group.
 *
 * Failure model: the child may fail to start (`start` rejects with the
 * spawn error: `ENOENT` for a missing command), exit at any time (`onclose`
 * fires once, with the exit code in `exitReason`), or ignore a request to
 * stop: `close` ends stdin (how MCP asks a stdio server to stop), then sends
 * SIGTERM to the group after `STOP_GRACE_MS`, then SIGKILL after as long
 * again. A host that dies outright leaves the child with a closed stdin,
 * which ends every well-behaved stdio server.
 */
const STOP_GRACE_MS = 2_000;
/** Longest stderr line passed on to the log; a longer one is cut (a server may print a whole document). */
const MAX_STDERR_LINE = 4_000;

export interface ChildServer {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Each line the child writes to stderr. */
  onStderrLine: (line: string) => void;
}

export class ChildProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  private exited: Promise<void> = Promise.resolve();
  private stderrRest = "";
  /** How the child ended (`exited with code 1`, `killed by SIGTERM`), once it has. */
  exitReason: string | undefined;

  constructor(private readonly server: ChildServer) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child) throw new Error("the MCP server process was already started");
    return new Promise((resolve, reject) => {
      const child = spawn(this.server.command, this.server.args, {
        env: this.server.env,
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        detached: true,
        windowsHide: true,
      });
      this.child = child;
      this.exited = new Promise((done) => child.once("close", () => done()));
      child.once("error", (error) => {
        reject(new Error(`cannot start "${this.server.command}": ${error.message}`));
        this.onerror?.(error);
      });
      child.once("spawn", () => resolve());
      child.once("close", (code, signal) => {
        this.exitReason = signal ? `killed by ${signal}` : `exited with code ${code}`;
        this.flushStderr();
        this.onclose?.();
      });
      child.stdout.on("data", (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (error) {
            // A line that is not JSON-RPC (a server printing to stdout by mistake): report it, keep reading.
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr.setEncoding("utf8");
      child.stderr.on("data", (chunk: string) => this.stderr(chunk));
      // EPIPE when the child is gone: `close` reports the end.
      child.stdin.on("error", (error) => this.onerror?.(error));
      child.stdout.on("error", (error) => this.onerror?.(error));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || this.exitReason !== undefined) {
      return Promise.reject(new Error("the MCP server process is not running"));
    }
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.exitReason !== undefined) return;
    child.stdin?.end();
    if (await this.stopsWithin(STOP_GRACE_MS)) return;
    this.signal(child, "SIGTERM");
    if (await this.stopsWithin(STOP_GRACE_MS)) return;
    this.signal(child, "SIGKILL");
    await this.exited;
  }

  private async stopsWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const stopped = await Promise.race([this.exited.then(() => true as const), timeout]);
    clearTimeout(timer);
    return stopped;
  }

  /** The whole process group (`npx` and the server it started), falling back to the child alone. */
  private signal(child: ChildProcess, signal: NodeJS.Signals): void {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      try {
        child.kill(signal);
      } catch {
        // Already gone.
      }
    }
  }

  private stderr(chunk: string): void {
    const lines = (this.stderrRest + chunk).split("\n");
    this.stderrRest = lines.pop() ?? "";
    if (this.stderrRest.length > MAX_STDERR_LINE) {
      lines.push(this.stderrRest);
      this.stderrRest = "";
    }
    for (const line of lines) this.emitLine(line);
  }

  private flushStderr(): void {
    if (this.stderrRest !== "") this.emitLine(this.stderrRest);
    this.stderrRest = "";
  }

  private emitLine(line: string): void {
    const trimmed = line.replace(/\r$/, "");
    if (trimmed === "") return;
    this.server.onStderrLine(trimmed.length > MAX_STDERR_LINE ? `${trimmed.slice(0, MAX_STDERR_LINE)}…` : trimmed);
  }
}
