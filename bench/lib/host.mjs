// Starts the real host (the built bin) as a child process on a free port
// with a throw-away data directory, as an operator would run it.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const bin = join(dirname(createRequire(import.meta.url).resolve("@cyrnel/host/package.json")), "bin", "cyrnel.js");

export async function startHost(env = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "cyrnel-bench-"));
  const child = spawn(process.execPath, ["--no-node-snapshot", bin, "start"], {
    env: { ...process.env, CYRNEL_DATA_DIR: dataDir, CYRNEL_PORT: "0", CYRNEL_LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
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
  const api = async (method, path, body) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const parsed = response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text;
    if (response.status >= 400) throw new Error(`${method} ${path} → ${response.status}: ${text.slice(0, 500)}`);
    return parsed;
  };
  const stop = async () => {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { url, api, stop, pid: child.pid };
}
