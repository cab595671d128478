// Tool call overhead: N sequential tool calls from process code to a local
// HTTP service, against N direct fetch calls to the same service.
import { pathToFileURL } from "node:url";
import { startDemoWeather } from "@cyrnel/example-demo-weather";
import { startHost } from "./lib/host.mjs";
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
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      let started = performance.now();
      const result = await host.api("POST", "/processes", { code, block: true, timeoutMs: 120_000 });
      if (result.exitState !== "success") throw new Error(JSON.stringify(result));
      viaHost.push(performance.now() - started);

      started = performance.now();
      for (let i = 0; i < CALLS; i++) await (await fetch(`${weather.url}/forecast/oslo?days=2`)).json();
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
    ];
  } finally {
    await host.stop();
    await weather.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await toolCalls();
