// Tool call overhead: N sequential tool calls from process code to a local
// HTTP service, against N direct fetch calls to the same service.
import { pathToFileURL } from "node:url";
import { startDemoWeather } from "@cyrnel/example-demo-weather";
import { startHost } from "./lib/host.mjs";
import { cpuTimeMs } from "./lib/memory.mjs";
import { median, report } from "./lib/stats.mjs";

const CALLS = Number(process.env.CALLS ?? 200);
const REPEATS = Number(process.env.REPEATS ?? 5);

export async function toolCalls() {
  const weather = await startDemoWeather();
  const host = await startHost();
  try {
    await host.api("POST", "/services", {
      id: "weather",
      adapter: "openapi",
      url: `${weather.url}/openapi.json`,
      enabled: true,
    });
    const code = `
      const started = Date.now();
      for (let i = 0; i < ${CALLS}; i++) await cyrnel.services.weather.tools.getForecast.invoke({ city: "oslo", days: 2 });
      cyrnel.output({ ms: Date.now() - started });`;
    const viaHost = [];
    const direct = [];
    // CPU time, less sensitive than wall time to other work on a shared machine: the host's during the process
    // runs (the demo API runs in this process, so it is not counted there), this process's during the fetches.
    let hostCpuMs = 0;
    let fetchCpuMs = 0;
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      let started = performance.now();
      const cpuBefore = cpuTimeMs(host.pid).host;
      const result = await host.api("POST", "/processes", { code, block: true, timeoutMs: 120_000 });
      if (result.exitState !== "success") throw new Error(JSON.stringify(result));
      hostCpuMs += cpuTimeMs(host.pid).host - cpuBefore;
      viaHost.push(performance.now() - started);

      started = performance.now();
      const usage = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) await (await fetch(`${weather.url}/forecast/oslo?days=2`)).json();
      const spent = process.cpuUsage(usage);
      fetchCpuMs += (spent.user + spent.system) / 1000;
      direct.push(performance.now() - started);
    }
    return [
      report(
        `tool call overhead (${CALLS} sequential calls, median of ${REPEATS})`,
        { value: median(viaHost), label: "one process calling cyrnel.services.weather.tools.getForecast.invoke" },
        { value: median(direct), label: "direct fetch + JSON parse from this process" },
      ),
      report(
        "tool call overhead per call above a direct fetch",
        {
          value: (median(viaHost) - median(direct)) / CALLS,
          label: "(cyrnel − direct) / calls, from the medians above",
        },
        { value: 0.3, label: "target: 0.3 ms" },
      ),
      report(
        `host CPU time per tool call (${CALLS * REPEATS} calls)`,
        { value: hostCpuMs / (CALLS * REPEATS), label: "the host process's CPU time during the runs / calls" },
        {
          value: fetchCpuMs / (CALLS * REPEATS),
          label: "this process's CPU time per direct fetch + JSON parse (the demo API's share included)",
        },
      ),
    ];
  } finally {
    await host.stop();
    await weather.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await toolCalls();
