// Install of a large real OpenAPI document (GitHub's REST API description,
// 1,200+ operations, ~13 MB) through the host, against swagger-parser's own
// dereference of the same document in this process; and the longest GET /health
// answer while the host installs it, against a GET /health on the idle host.
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
    started = performance.now();
    const service = await host.api("POST", "/services", { id: "github", adapter: "openapi", definition: text });
    const install = performance.now() - started;
    // Again, with GET /health sent one after another meanwhile (apart, so the polling does not slow the timed install).
    await host.api("DELETE", "/services/github");
    const idle = median(await timeEach(50, () => health(host.url)));
    const installing = host.api("POST", "/services", { id: "github", adapter: "openapi", definition: text });
    const longest = Math.max(...(await pollHealth(host.url, installing)));
    await installing;
    return [
      report(
        `install of GitHub's REST API (${service.toolCount} tools, ${(text.length / 1e6).toFixed(1)} MB)`,
        { value: install, label: "POST /services with the document inline, until 201" },
        { value: dereference, label: "SwaggerParser.dereference of the same document" },
      ),
      report(
        "longest GET /health during an install of the same document",
        { value: longest, label: "GET /health, one after another during a second install" },
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
