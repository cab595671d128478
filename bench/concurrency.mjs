// Execution at agent scale. (1) PROCESSES programs submitted at once, each
// awaiting one 1 s tool call to a local API installed as an OpenAPI service:
// wall time until every one has answered, p50/p99 completion, peak RSS of the
// host and of the sandbox process, CPU time of each process. Baselines: the
// 1 s the call itself takes, and isolated-vm alone running the same number of
// fresh isolates at once in this process (lib/isolate-floor.mjs).
// (2) The same burst with a memory bomb, a busy loop and a killed process
// among the waiting ones: those three fail, every other one succeeds.
// (3) SEQUENTIAL trivial processes one after another: RSS growth of host +
// sandbox process.
import { availableParallelism } from "node:os";
import { pathToFileURL } from "node:url";
import { startHost } from "./lib/host.mjs";
import { isolateFloor } from "./lib/isolate-floor.mjs";
import { cpuTimeMs, currentMemory, watchMemory } from "./lib/memory.mjs";
import { startSlowApi } from "./lib/slow-api.mjs";
import { report } from "./lib/stats.mjs";

const PROCESSES = Number(process.env.PROCESSES ?? 1000);
const SEQUENTIAL = Number(process.env.SEQUENTIAL ?? 10_000);
const WAIT_MS = 1000;
/**
 * The environment's caps for the run, raised above the defaults so that the
 * burst is admitted whole ("none": leave the module's config alone).
 */
const ENV_CONFIG =
  process.env.ENV_CONFIG ?? JSON.stringify({ maxExecutions: 4000, queueSize: 4000, memoryBudgetMb: 3072 });

const waiting = (i) =>
  `const r = await cyrnel.services.slow.tools.wait.invoke({ ms: ${WAIT_MS} });\ncyrnel.output({ i: ${i}, waited: r.waitedMs });`;

export async function concurrency() {
  const slow = await startSlowApi();
  const host = await startHost();
  try {
    await host.api("POST", "/services", {
      id: "slow",
      adapter: "openapi",
      url: `${slow.url}/openapi.json`,
      enabled: true,
    });
    if (ENV_CONFIG !== "none") await host.api("PATCH", "/modules/typescript-ivm/config", JSON.parse(ENV_CONFIG));
    for (let i = 0; i < 20; i++) await submit(host, "cyrnel.output({ warm: true });");

    const burst = await runBurst(host, PROCESSES);
    const floor = await isolateFloor(PROCESSES, WAIT_MS);
    const results = [
      report(
        `${PROCESSES} processes at once, each awaiting one ${WAIT_MS} ms tool call: wall time`,
        {
          value: burst.wallMs,
          label: `all answered (${burst.succeeded} succeeded, ${burst.refused} refusals retried); p50 ${burst.p50.toFixed(0)} ms, p99 ${burst.p99.toFixed(0)} ms`,
        },
        { value: WAIT_MS, label: "the tool call's own delay" },
      ),
      report(
        `${PROCESSES} processes at once against isolated-vm alone`,
        { value: burst.wallMs, label: "the same burst through cyrnel (above)" },
        {
          value: floor,
          label: `${PROCESSES} fresh isolates at once in this process, each running a program that awaits a ${WAIT_MS} ms host call`,
        },
      ),
      report(
        "peak RSS of the sandbox process during the burst",
        { value: burst.peak.sandbox, label: `host peak ${burst.peak.host.toFixed(0)} MB` },
        { value: 1536, label: "target: 1.5 GB" },
        "MB",
      ),
    ];
    console.log(
      `  CPU time during the burst: host ${burst.cpu.host} ms, sandbox ${burst.cpu.sandbox} ms, this process (callers and the slow API) ${burst.cpu.bench} ms, over ${burst.wallMs.toFixed(0)} ms of wall time on ${availableParallelism()} cores`,
    );
    if (burst.succeeded !== PROCESSES)
      throw new Error(`only ${burst.succeeded} of ${PROCESSES} succeeded: ${burst.failures}`);

    const hostile = await runBurst(host, PROCESSES, true);
    console.log(
      `\nthe same burst with a memory bomb, a busy loop and a killed process among them: ${hostile.wallMs.toFixed(0)} ms; ` +
        `${hostile.succeeded} of ${PROCESSES} waiting ones succeeded; ${hostile.hostile}`,
    );
    if (hostile.succeeded !== PROCESSES) throw new Error(`hostile burst: ${hostile.failures}`);

    const sequential = await runSequential(host, SEQUENTIAL);
    results.push(
      report(
        `RSS growth of host + sandbox over ${SEQUENTIAL} sequential trivial processes`,
        {
          value: sequential.growthMb,
          label: `host ${sequential.before.host.toFixed(0)} → ${sequential.after.host.toFixed(0)} MB, sandbox ${sequential.before.sandbox.toFixed(0)} → ${sequential.after.sandbox.toFixed(0)} MB, ${sequential.perSecond.toFixed(0)} processes/s`,
        },
        { value: 50, label: "target: 50 MB" },
        "MB",
      ),
    );
    return results;
  } finally {
    await host.stop();
    await slow.close();
  }
}

/** A blocking POST /processes; a 429 is retried after its Retry-After, as an agent would. */
async function submit(host, code, extra = {}, onRefused = () => {}) {
  for (;;) {
    const { status, headers, body, text } = await host.request("POST", "/processes", { code, block: true, ...extra });
    if (status === 201) return body;
    if (status !== 429) throw new Error(`POST /processes → ${status}: ${text.slice(0, 300)}`);
    onRefused();
    await new Promise((resolve) => setTimeout(resolve, Number(headers.get("retry-after") ?? 1) * 1000));
  }
}

async function runBurst(host, count, withHostile = false) {
  const memory = watchMemory(host.pid);
  const cpuBefore = { ...cpuTimeMs(host.pid), bench: process.cpuUsage() };
  let refused = 0;
  const started = performance.now();
  const finishedAt = [];
  const failures = [];
  const waits = Array.from({ length: count }, async (_, i) => {
    const result = await submit(host, waiting(i), {}, () => refused++);
    finishedAt.push(performance.now() - started);
    if (result.exitState !== "success" || result.output.i !== i || result.output.waited !== WAIT_MS) {
      failures.push(`${i}: ${result.exitState} ${result.error}`);
    }
  });
  let hostile = "";
  if (withHostile) {
    const bomb = submit(host, "const hoard = [];\nfor (;;) hoard.push(new Array(10000).fill(hoard.length));");
    const loop = submit(host, "while (true) {}", { timeoutMs: 2000 });
    const victim = await host.api("POST", "/processes", { code: "await new Promise(() => {});", timeoutMs: 60_000 });
    await host.api("POST", `/processes/${victim.id}/signals/kill`);
    const [bombResult, loopResult] = await Promise.all([bomb, loop]);
    const killed = await host.api("GET", `/processes/${victim.id}`);
    hostile = `bomb ${bombResult.exitState} (${bombResult.error?.slice(0, 40)}…), loop ${loopResult.exitState}, killed ${killed.exitState}`;
  }
  await Promise.all(waits);
  const wallMs = performance.now() - started;
  const peak = memory.stop();
  const cpuAfter = cpuTimeMs(host.pid);
  const bench = process.cpuUsage(cpuBefore.bench);
  const cpu = {
    host: cpuAfter.host - cpuBefore.host,
    sandbox: cpuAfter.sandbox - cpuBefore.sandbox,
    bench: Math.round((bench.user + bench.system) / 1000),
  };
  finishedAt.sort((a, b) => a - b);
  const at = (q) => finishedAt[Math.min(finishedAt.length - 1, Math.floor(q * finishedAt.length))];
  return {
    wallMs,
    p50: at(0.5),
    p99: at(0.99),
    peak,
    cpu,
    refused,
    hostile,
    succeeded: count - failures.length,
    failures: failures.slice(0, 5).join("; "),
  };
}

async function runSequential(host, count) {
  const code = "cyrnel.output({ ok: 1 + 1 });";
  for (let i = 0; i < 500; i++) await submit(host, code);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const before = currentMemory(host.pid);
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const result = await submit(host, code);
    if (result.exitState !== "success") throw new Error(JSON.stringify(result));
  }
  const perSecond = count / ((performance.now() - started) / 1000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = currentMemory(host.pid);
  return { before, after, perSecond, growthMb: after.host + after.sandbox - before.host - before.sandbox };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await concurrency();
