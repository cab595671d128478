#!/usr/bin/env -S node --no-node-snapshot
// isolated-vm on Node 20 needs --no-node-snapshot; the shebang passes it. When
// started as `node bin/cyrnel.js` without the flag, re-run with it.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

if (process.execArgv.includes("--no-node-snapshot")) {
  const { main } = await loadCli();
  process.exitCode = await main(process.argv.slice(2));
} else {
  const child = spawn(process.execPath, ["--no-node-snapshot", ...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}

/**
 * Loading the host opens hundreds of its files at once (Node reads an ES module graph in parallel): under a low
 * open-file limit that fails before any of the host's code runs, so it is said here in one line.
 */
async function loadCli() {
  // Read first: once the limit is hit, even this file could not be opened.
  const limit = openFileLimit();
  try {
    return await import("../dist/cli.js");
  } catch (error) {
    if (error?.code !== "EMFILE" && error?.code !== "ENFILE") throw error;
    process.stderr.write(
      `cyrnel: could not start: too many open files while loading (${error.code}); the open-file limit ` +
        `(ulimit -n) is ${limit}: raise it to 1024 or more\n`,
    );
    process.exit(1);
  }
}

function openFileLimit() {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((row) => row.startsWith("Max open files"));
    return line?.slice("Max open files".length).trim().split(/\s+/)[0] ?? "unknown";
  } catch {
    return "unknown";
  }
}
