// Install of a large real OpenAPI document (GitHub's REST API description,
// 1,200+ operations, ~13 MB) through the host, against swagger-parser's own
// dereference of the same document in this process (REPEATS rounds, each an
// install and a dereference, medians compared); and the longest GET /health
// answer while the host installs it, against a GET /health on the idle host.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import SwaggerParser from "@apidevtools/swagger-parser";
import { startHost } from "./lib/host.mjs";
import { health, pollHealth, postJson } from "./lib/requests.mjs";
import { median, report, timeEach } from "./lib/stats.mjs";

const documentPath = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");

/** Installs and dereferences, alternated; the figures are the medians (one run each swings by ±50% under load). */
const REPEATS = Number(process.env.REPEATS ?? 3);

export async function installLarge() {
  const text = readFileSync(documentPath, "utf8");
  const host = await startHost({ CYRNEL_INVOKE_TIMEOUT_MS: "300000" });
  try {
    const installs = [];
    const dereferences = [];
    // CPU time too (all threads of each process): far steadier than wall time when other work shares the machine.
    const installCpu = [];
    const dereferenceCpu = [];
    let service;
    for (let round = 0; round < REPEATS; round++) {
      let started = performance.now();
      let cpu = ownCpuMs();
      await SwaggerParser.dereference(JSON.parse(text));
      dereferences.push(performance.now() - started);
      dereferenceCpu.push(ownCpuMs() - cpu);
      // The request body is built before the clock starts: serialising it is the client's work, not the install.
      const body = JSON.stringify({ id: "github", adapter: "openapi", definition: text });
      cpu = processCpuMs(host.pid);
      started = performance.now();
      service = await postJson(host.url, "/services", body);
      installs.push(performance.now() - started);
      installCpu.push(processCpuMs(host.pid) - cpu);
      await host.api("DELETE", "/services/github");
      console.log(
        `  round ${round + 1}: install ${Math.round(installs.at(-1))} ms (host CPU ${Math.round(installCpu.at(-1))} ms), ` +
          `dereference ${Math.round(dereferences.at(-1))} ms (CPU ${Math.round(dereferenceCpu.at(-1))} ms)`,
      );
    }
    console.log(
      `  CPU time, medians: install ${Math.round(median(installCpu))} ms, dereference ${Math.round(median(dereferenceCpu))} ms ` +
        `(${(median(installCpu) / median(dereferenceCpu)).toFixed(2)}×)`,
    );
    // Again, with GET /health sent one after another meanwhile (apart, so the polling does not slow the timed install).
    const idle = median(await timeEach(50, () => health(host.url)));
    const installing = host.api("POST", "/services", { id: "github", adapter: "openapi", definition: text });
    const longest = Math.max(...(await pollHealth(host.url, installing)));
    await installing;
    return [
      report(
        `install of GitHub's REST API (${service.toolCount} tools, ${(text.length / 1e6).toFixed(1)} MB), median of ${REPEATS}`,
        { value: median(installs), label: "POST /services with the document inline, until 201" },
        { value: median(dereferences), label: "JSON.parse + SwaggerParser.dereference of the same document" },
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

function ownCpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** User + system CPU time of every thread of process `pid` so far (Linux `/proc`), in ms. */
function processCpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await installLarge();
