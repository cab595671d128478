// The type checker's first real check after it starts, in the thread itself (no host, no HTTP): `THREADS` (12) fresh
// checker threads, each declared the demo weather service and asked to check a two-line program six times. Printed:
// the median of the threads for the declaration, the first check, the second and the sixth, and how long a thread
// took to be ready (its warm-up). The first check after a start, against the later ones, is what the warm-up is for.
// Not in `pnpm bench`.
import { pathToFileURL } from "node:url";
import { openApiDocument } from "@cyrnel/example-demo-weather";
import { instantiate } from "../packages/openapi/dist/index.js";
import { renderTools } from "../packages/typescript-ivm/dist/checker/render-tools.js";
import { CheckerThread } from "../packages/typescript-ivm/dist/supervisor/checker-thread.js";
import { median } from "./lib/stats.mjs";

const THREADS = Number(process.env.THREADS ?? 12);
const CHECKS = 6;
const program = (n) =>
  `async function f() { const r = await cyrnel.services.weather.tools.getForecast.invoke({ city: "oslo", days: ${(n % 7) + 1} }); console.log(r); }\nvoid f; console.log(${n});`;

export async function checkerFirst() {
  const adapter = instantiate();
  const definition = await adapter.generateDefinition(JSON.stringify(openApiDocument("http://127.0.0.1:9")));
  await adapter.teardown();
  const tools = definition.tools.map((tool) => ({
    serviceId: "weather",
    toolId: tool.id,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
  }));
  const rendered = renderTools("weather", JSON.stringify(tools));
  const rows = [];
  for (let round = 0; round < THREADS; round++) {
    const thread = new CheckerThread(1024);
    const started = performance.now();
    await thread.warm();
    const ready = performance.now() - started;
    // The thread's own work right after it is ready (V8 compiling in the background) is not what is measured.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const declaring = performance.now();
    const declare = { type: "declare", serviceId: "weather", ...rendered };
    await thread.request(declare, 60_000);
    const row = { ready, declare: performance.now() - declaring, checks: [] };
    for (let n = 0; n < CHECKS; n++) {
      const checking = performance.now();
      const services = [{ serviceId: "weather", tools: rendered.tools, declared: true }];
      const answer = await thread.request({ type: "check", programs: [program(n)], services }, 60_000);
      if (!answer.ok || answer.errors[0].length > 0) throw new Error(`check failed: ${JSON.stringify(answer)}`);
      row.checks.push(performance.now() - checking);
    }
    await thread.close();
    rows.push(row);
  }
  const ms = (values) => `${median(values).toFixed(1)} ms`;
  console.log(`\nThe checker thread's checks after it starts (median of ${THREADS} threads)`);
  console.log(`  ready after start: ${ms(rows.map((row) => row.ready))}`);
  console.log(`  declaring the weather service: ${ms(rows.map((row) => row.declare))}`);
  for (const index of [0, 1, CHECKS - 1]) {
    console.log(`  check ${index + 1}: ${ms(rows.map((row) => row.checks[index]))}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await checkerFirst();
