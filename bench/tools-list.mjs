// `GET /tools` latency with 2,000 tools installed, against `GET /health`
// (the cheapest route: same HTTP stack, no database work) in the same run.
import { pathToFileURL } from "node:url";
import { startHost } from "./lib/host.mjs";
import { median, report, timeEach } from "./lib/stats.mjs";

const ROUNDS = Number(process.env.ROUNDS ?? 300);

function generatedDocument(operations) {
  const paths = {};
  for (let i = 0; i < operations; i++) {
    paths[`/things${i}/{id}`] = {
      get: {
        operationId: `getThing${i}`,
        summary: `Get thing number ${i}`,
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { 200: { description: "ok", content: { "application/json": { schema: { type: "object" } } } } },
      },
    };
  }
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Many", version: "1" },
    servers: [{ url: "http://127.0.0.1:1" }],
    paths,
  });
}

export async function toolsList() {
  const host = await startHost();
  try {
    await host.api("POST", "/services", {
      id: "many",
      adapter: "openapi",
      definition: generatedDocument(2000),
      enabled: true,
    });
    const health = await timeEach(ROUNDS, () => host.api("GET", "/health"));
    const list = await timeEach(ROUNDS, () => host.api("GET", "/tools?limit=100"));
    const search = await timeEach(ROUNDS, () => host.api("GET", "/tools?query=number%201999"));
    const baseline = { value: median(health), label: "GET /health" };
    return [
      report("GET /tools?limit=100 with 2,000 tools (median)", { value: median(list), label: "first page" }, baseline),
      report(
        "GET /tools?query=… with 2,000 tools (median)",
        { value: median(search), label: "substring search" },
        baseline,
      ),
    ];
  } finally {
    await host.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await toolsList();
