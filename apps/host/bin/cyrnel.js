#!/usr/bin/env -S node --no-node-snapshot
// isolated-vm on Node 20 needs --no-node-snapshot; the shebang passes it. When
// started as `node bin/cyrnel.js` without the flag, re-run with it.
import { spawn } from "node:child_process";

if (process.execArgv.includes("--no-node-snapshot")) {
  const { main } = await import("../dist/cli.js");
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
