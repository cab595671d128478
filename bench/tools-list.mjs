// `GET /tools` latency against `GET /health` (the cheapest route: same HTTP
// stack, no database work) in the same run: with 2,000 small generated tools,
// and with GitHub's REST API installed (1,223 tools with large schemas).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { startHost } from "./lib/host.mjs";
import { median, report, timeEach } from "./lib/stats.mjs";

const ROUNDS = Number(process.env.ROUNDS ?? 300);
/** Rounds of the GitHub pages, which are 10 to 1,000 times larger. */
const GITHUB_ROUNDS = Number(process.env.GITHUB_ROUNDS ?? 50);
const githubPath = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");

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
  const host = await startHost({ CYRNEL_INVOKE_TIMEOUT_MS: "300000" });
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
    const results = [
      report("GET /tools?limit=100 with 2,000 tools (median)", { value: median(list), label: "first page" }, baseline),
      report(
        "GET /tools?query=… with 2,000 tools (median)",
        { value: median(search), label: "substring search" },
        baseline,
      ),
    ];

    await host.api("POST", "/services", {
      id: "github",
      adapter: "openapi",
      definition: readFileSync(githubPath, "utf8"),
    });
    const github = await timeEach(GITHUB_ROUNDS, async () => {
      const page = await host.api("GET", "/tools?serviceId=github&limit=1000");
      if (page.items.length !== 1000) throw new Error(`expected 1,000 tools, got ${page.items.length}`);
    });
    const withSchemas = await timeEach(Math.ceil(GITHUB_ROUNDS / 5), () =>
      host.api("GET", "/tools?serviceId=github&limit=100&include=schemas"),
    );
    const githubHealth = {
      value: median(await timeEach(ROUNDS, () => host.api("GET", "/health"))),
      label: "GET /health",
    };
    results.push(
      report(
        "GET /tools?serviceId=github&limit=1000, GitHub's API installed (median)",
        { value: median(github), label: "one page of 1,000 tools" },
        githubHealth,
      ),
      report(
        "GET /tools?serviceId=github&limit=100&include=schemas (median)",
        { value: median(withSchemas), label: "100 tools with their schemas" },
        githubHealth,
      ),
    );
    return results;
  } finally {
    await host.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await toolsList();
