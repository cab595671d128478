// Starts the real host (the built bin) as a child process on a free port
// with a throw-away data directory, as an operator would run it.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

// HOST_BIN runs another build (e.g. another checkout's apps/host/bin/cyrnel.js) to compare before and after.
const bin =
  process.env.HOST_BIN ??
  join(dirname(createRequire(import.meta.url).resolve("@cyrnel/host/package.json")), "bin", "cyrnel.js");

/**
 * `nodeArgs`: extra options for the host's Node; `BENCH_HOST_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` profiles it.
 * `options.dataDir`: start on this data directory (a host restarted after a kill), which `stop()` then keeps.
 * `options.onLine`: called with each line the host prints on stdout (its log), as it arrives.
 */
export async function startHost(
  env = {},
  nodeArgs = (process.env.BENCH_HOST_NODE_ARGS ?? "").split(" ").filter(Boolean),
  options = {},
) {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "cyrnel-bench-"));
  const child = spawn(process.execPath, ["--no-node-snapshot", ...nodeArgs, bin, "start"], {
    env: {
      ...process.env,
      CYRNEL_DATA_DIR: dataDir,
      CYRNEL_PORT: "0",
      CYRNEL_LOG_LEVEL: "info",
      // The benches drive one caller as hard as the host goes: its per-key cap on calls in flight is not measured.
      CYRNEL_KEY_INFLIGHT_CALLS: "1000000",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (options.onLine) {
    let partial = "";
    child.stdout.on("data", (chunk) => {
      const lines = (partial + chunk).split("\n");
      partial = lines.pop();
      for (const line of lines) options.onLine(line);
    });
  }
  const url = await new Promise((resolve, reject) => {
    let buffered = "";
    child.stdout.on("data", (chunk) => {
      buffered += chunk;
      const match = /"msg":"listening".*?"url":"([^"]+)"/.exec(buffered);
      if (match) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`host exited with ${code}`)));
  });
  // Keep reading stdout (info logs, e.g. module activity) so the pipe never fills.
  child.stdout.resume();
  /** Any answer, with its status and headers. */
  const request = async (method, path, body) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const parsed = response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text;
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  /** The body of a successful answer; anything else throws. */
  const api = async (method, path, body) => {
    const { status, body: parsed, text } = await request(method, path, body);
    if (status >= 400) throw new Error(`${method} ${path} → ${status}: ${text.slice(0, 500)}`);
    return parsed;
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  /** SIGKILL, as a crash; the data directory stays. */
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  };
  const alive = () => child.exitCode === null && child.signalCode === null;
  return { url, pid: child.pid, dataDir, api, request, stop, kill, alive };
}
