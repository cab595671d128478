#!/usr/bin/env node
// `pnpm test`: every package's suite through turbo (`turbo run test --continue`), streamed as it runs. Turbo runs the
// suites side by side, so a failure printed early by one package ends up buried under the output of the others; when
// a task fails, this repeats each failed task's failure report at the very end, where a reader of the log's tail
// (CI keeps only the tail) finds it. Nothing else changes: the exit code is turbo's.
import { spawn } from "node:child_process";

const MAX_LINES_PER_TASK = 200;
// ANSI colour sequences: the recap matches on plain text.
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts every colour sequence
const ANSI = /\u001b\[[0-9;]*m/g;

const turbo = spawn("turbo", ["run", "test", "--continue", ...process.argv.slice(2)], {
  stdio: ["inherit", "pipe", "pipe"],
  shell: process.platform === "win32",
});

/** Each task's lines (turbo prefixes them with `<package>:test: `), kept to build the recap. */
const lines = new Map();
let pending = "";
function collect(chunk) {
  pending += chunk.toString("utf8");
  const parts = pending.split("\n");
  pending = parts.pop() ?? "";
  for (const raw of parts) {
    const line = raw.replace(ANSI, "");
    const match = /^(@?[\w./-]+):test: (.*)$/.exec(line);
    if (!match) continue;
    const [, task, text] = match;
    if (!lines.has(task)) lines.set(task, []);
    lines.get(task).push(text);
  }
}
turbo.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  collect(chunk);
});
turbo.stderr.on("data", (chunk) => process.stderr.write(chunk));

/** A task's failure report: vitest's failed files and tests (`FAIL`, `×`) and its "Failed Tests" section. */
function failures(taskLines) {
  const out = [];
  let inSection = false;
  for (const text of taskLines) {
    if (/⎯+ Failed (Tests|Suites) \d+ ⎯+/.test(text)) inSection = true;
    else if (/^\s*Test Files\s/.test(text)) inSection = false;
    if (inSection || /^\s*(FAIL|×|❯ .*\(\d+ tests?.*\d+ failed)/.test(text) || /suites on \w+: failed/.test(text))
      out.push(text);
  }
  return out;
}

turbo.on("close", (code, signal) => {
  if (pending) collect("\n");
  const failed = code !== 0 ? [...lines].map(([task, kept]) => [task, failures(kept)]).filter(([, f]) => f.length) : [];
  if (failed.length > 0) {
    process.stdout.write("\n==== what failed, repeated from above ====\n");
    for (const [task, report] of failed) {
      process.stdout.write(`\n---- ${task} ----\n`);
      const shown = report.slice(0, MAX_LINES_PER_TASK);
      process.stdout.write(`${shown.join("\n")}\n`);
      if (report.length > shown.length) process.stdout.write(`… ${report.length - shown.length} more lines above\n`);
    }
  }
  if (signal) process.kill(process.pid, signal);
  process.exit(code ?? 1);
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => turbo.kill(signal));
