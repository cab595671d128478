// Install of a large real OpenAPI document (GitHub's REST API description,
// 1,200+ operations, ~13 MB) through the host, against swagger-parser's own
// dereference of the same document in this process.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import SwaggerParser from "@apidevtools/swagger-parser";
import { startHost } from "./lib/host.mjs";
import { median, report, timeEach } from "./lib/stats.mjs";

const documentPath = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");

export async function installLarge() {
  const text = readFileSync(documentPath, "utf8");
  let started = performance.now();
  await SwaggerParser.dereference(JSON.parse(text));
  const dereference = performance.now() - started;

  const host = await startHost({ CYRNEL_INVOKE_TIMEOUT_MS: "300000" });
  try {
    const idle = median(await timeEach(50, () => health(host.url)));
    started = performance.now();
    const installing = host.api("POST", "/services", { id: "github", adapter: "openapi", definition: text });
    const stalls = pollHealth(host.url, installing);
    const service = await installing;
    const install = performance.now() - started;
    const longest = Math.max(...(await stalls));
    return [
      report(
        `install of GitHub's REST API (${service.toolCount} tools, ${(text.length / 1e6).toFixed(1)} MB)`,
        { value: install, label: "POST /services with the document inline, until 201" },
        { value: dereference, label: "SwaggerParser.dereference of the same document" },
      ),
      report(
        "longest GET /health during that install",
        { value: longest, label: "GET /health, one after another while the install runs" },
        { value: idle, label: "median GET /health on the idle host" },
      ),
    ];
  } finally {
    await host.stop();
  }
}

async function health(url) {
  await (await fetch(`${url}/health`)).text();
}

/** Latencies of GET /health sent one after another until `until` settles. */
async function pollHealth(url, until) {
  let done = false;
  const stop = () => {
    done = true;
  };
  until.then(stop, stop);
  const latencies = [];
  while (!done) {
    const started = performance.now();
    await health(url);
    latencies.push(performance.now() - started);
  }
  return latencies;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await installLarge();
