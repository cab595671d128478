/**
 * Starts the real `cyrnel start` (the built bin) as a child process on a
 * random port with its own data directory, and talks to it over HTTP.
 * Every line the host prints is kept, for assertions on logs.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scaled } from "../../../../vitest.shared.mjs";
import { databaseEnv } from "./database.js";

const hostDir = join(import.meta.dirname, "..", "..");
export const fixturesDir = join(import.meta.dirname, "..", "fixtures");

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

/** What the suites need of a host, spawned or in-process: its data dir and its API. */
export interface ApiHost {
  readonly dataDir: string;
  api<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
}

/** The request `api()` sends: JSON for anything but a string body, the bearer key when one is set. */
export function apiRequest(
  method: string,
  body: unknown,
  headers: Record<string, string>,
  apiKey: string | undefined,
): RequestInit {
  const init: RequestInit = { method, headers: { ...headers } };
  if (apiKey && !("authorization" in headers))
    (init.headers as Record<string, string>).authorization = `Bearer ${apiKey}`;
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  return init;
}

/** The response as the suites read it: status, JSON body when it is JSON (else the text), text and headers. */
export async function readApiResponse<T>(response: Response): Promise<ApiResponse<T>> {
  const text = await response.text();
  let parsed: unknown = text;
  if (response.headers.get("content-type")?.includes("json") && text !== "") parsed = JSON.parse(text);
  return { status: response.status, body: parsed as T, text, headers: response.headers };
}

export interface StartOptions {
  dataDir?: string;
  env?: Record<string, string>;
  /** Fixture modules (folders under test/fixtures/modules) copied into the data dir before start. */
  modules?: string[];
  /** Wait for the "listening" line (false to observe a failing start). */
  expectListening?: boolean;
  /** Starts the host under this open-file limit (`ulimit -n`). */
  openFileLimit?: number;
  /** The host's working directory (default: its data directory, which must then exist). */
  cwd?: string;
  /** Node's own options for the host (default `--no-node-snapshot`, as the bin's shebang gives). */
  nodeArgs?: string[];
}

export class TestHost implements ApiHost {
  readonly output: string[] = [];
  url = "";
  port = 0;
  exitCode: number | null = null;
  private readonly exited: Promise<number | null>;
  apiKey: string | undefined;

  constructor(
    readonly child: ChildProcess,
    readonly dataDir: string,
    readonly options: StartOptions,
  ) {
    this.apiKey = options.env?.CYRNEL_API_KEY;
    this.exited = new Promise((resolve) =>
      child.once("exit", (code) => {
        this.exitCode = code;
        resolve(code);
      }),
    );
  }

  /** Every log line parsed as JSON (non-JSON lines are skipped). */
  logs(): Record<string, unknown>[] {
    return this.output.flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });
  }

  async api<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    const init = apiRequest(method, body, headers, this.apiKey);
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, init);
    } catch (error) {
      // The host closes a kept-alive connection after 5 s idle; a request that reuses it at that very moment (a
      // loaded machine, after a long test) fails before the host read it. It is sent again once, on a new one.
      if (!closedBeforeAnswer(error)) throw error;
      response = await fetch(`${this.url}${path}`, init);
    }
    return readApiResponse(response);
  }

  /** SIGTERM and wait for a clean exit. */
  async stop(): Promise<number | null> {
    if (this.exitCode === null) this.child.kill("SIGTERM");
    return this.exited;
  }

  async kill(): Promise<void> {
    if (this.exitCode === null) this.child.kill("SIGKILL");
    await this.exited;
  }

  waitForExit(): Promise<number | null> {
    return this.exited;
  }

  /** Resolves when a log line matching `predicate` appears. */
  async waitForLog(
    predicate: (entry: Record<string, unknown>) => boolean,
    timeoutMs = scaled(60_000),
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.logs().find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`log line not found; output:\n${this.output.join("\n")}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

function closedBeforeAnswer(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  return cause?.code === "UND_ERR_SOCKET" && cause.message === "other side closed";
}

export function tempDir(prefix = "cyrnel-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function installFixtureModule(dataDir: string, id: string): void {
  cpSync(join(fixturesDir, "modules", id), join(dataDir, "modules", id), { recursive: true });
}

export async function startHost(options: StartOptions = {}): Promise<TestHost> {
  const dataDir = options.dataDir ?? tempDir();
  for (const id of options.modules ?? []) installFixtureModule(dataDir, id);
  const database = await databaseEnv(dataDir, options.env);
  const argv = [...(options.nodeArgs ?? ["--no-node-snapshot"]), join(hostDir, "bin", "cyrnel.js"), "start"];
  const [command, args] =
    options.openFileLimit === undefined
      ? [process.execPath, argv]
      : ["/bin/sh", ["-c", `ulimit -n ${options.openFileLimit} && exec "$0" "$@"`, process.execPath, ...argv]];
  const child = spawn(command, args, {
    cwd: options.cwd ?? dataDir,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CYRNEL_DATA_DIR: dataDir,
      CYRNEL_PORT: "0",
      CYRNEL_HOST: "127.0.0.1",
      CYRNEL_LOG_LEVEL: "debug",
      CYRNEL_VALIDATE_RESPONSES: "1",
      ...database,
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const host = new TestHost(child, dataDir, options);
  let buffered = "";
  const collect = (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    host.output.push(...lines.filter((line) => line !== ""));
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  if (options.expectListening === false) return host;

  const listening = await Promise.race([
    host.waitForLog((entry) => entry.msg === "listening", scaled(120_000)),
    host.waitForExit().then((code) => {
      throw new Error(`host exited with ${code} before listening:\n${host.output.join("\n")}`);
    }),
  ]);
  host.port = listening.port as number;
  host.url = `http://127.0.0.1:${host.port}`;
  return host;
}

/** Restart on the same data dir with the same options. */
export async function restart(host: TestHost, overrides: StartOptions = {}): Promise<TestHost> {
  await host.stop();
  return startHost({ ...host.options, modules: [], ...overrides, dataDir: host.dataDir });
}
