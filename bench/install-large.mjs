// Install of a large real OpenAPI document (GitHub's REST API description,
// 1,200+ operations, ~13 MB) through the host, against swagger-parser's own
// dereference of the same document in this process.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import SwaggerParser from "@apidevtools/swagger-parser";
import { startHost } from "./lib/host.mjs";
import { report } from "./lib/stats.mjs";

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
    return [
      report(
        `install of GitHub's REST API (${service.toolCount} tools, ${(text.length / 1e6).toFixed(1)} MB)`,
        { value: install, label: "POST /services with the document inline, until 201" },
        { value: dereference, label: "SwaggerParser.dereference of the same document" },
      ),
    ];
  } finally {
    await host.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await installLarge();
