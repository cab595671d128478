#!/usr/bin/env node
// The `cyrnel` command: the host and its client commands, in this one process. Only the sandbox processes the
// typescript-ivm environment forks load isolated-vm (which wants --no-node-snapshot on Node 20: they are forked
// with it), so a supervisor's PID is the host's own, and a signal to it reaches the host.
import { readFileSync } from "node:fs";

/** Below this open-file limit loading the host fails or not depending on how its reads race (see loadCli). */
const MIN_OPEN_FILES = 320;

const { main } = await loadCli();
process.exitCode = await main(process.argv.slice(2));

/**
 * Loading the host opens hundreds of its files at once (Node reads an ES module graph in parallel): under a low
 * open-file limit that fails before any of the host's code runs, so it is said here in one line. Below
 * MIN_OPEN_FILES it would fail or not depending on how the reads race, so it is refused up front.
 */
async function loadCli() {
  // Read first: once the limit is hit, even this file could not be opened.
  const limit = openFileLimit();
  if (Number(limit) < MIN_OPEN_FILES) {
    process.stderr.write(
      `cyrnel: could not start: the open-file limit (ulimit -n) is ${limit}; loading needs ${MIN_OPEN_FILES}, and ` +
        "serving needs more (one per connection, follower and tool call): raise it to 4096 or more\n",
    );
    process.exit(1);
  }
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
