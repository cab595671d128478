// Search quality, not speed: the tasks of apps/host/test/fixtures/tool-search-queries.json (an agent's words, each with
// the tool(s) that do it) searched with `GET /tools?search=…&limit=10` on the built host with the five APIs of that
// table installed together (weather, Petstore, Slack, Stripe, GitHub; 1,878 tools). Prints how many tasks have their
// tool first, in the top 3 and in the top 10, the misses, and the median time of one search. HOST_BIN compares
// another build; CYRNEL_DATABASE_URL runs it on PostgreSQL (an empty database). Not in `pnpm bench`.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { FIVE_APIS, installFiveApis } from "./lib/five-apis.mjs";
import { startHost } from "./lib/host.mjs";
import { median } from "./lib/stats.mjs";

const QUERIES = JSON.parse(
  readFileSync(new URL("../apps/host/test/fixtures/tool-search-queries.json", import.meta.url), "utf8"),
);

export async function toolSearchQuality() {
  const host = await startHost();
  try {
    await installFiveApis(host);
    const ranks = [];
    const times = [];
    const misses = [];
    for (const { query, tools } of QUERIES) {
      const started = performance.now();
      const page = await host.api("GET", `/tools?limit=10&search=${encodeURIComponent(query)}`);
      times.push(performance.now() - started);
      const found = page.items.map((tool) => `${tool.serviceId}/${tool.id}`);
      const rank = found.findIndex((tool) => tools.includes(tool)) + 1;
      ranks.push(rank);
      if (rank === 0 || rank > 3) misses.push(`${query}: ${rank === 0 ? "> 10" : rank} (top: ${found[0]})`);
    }
    const within = (top) => ranks.filter((rank) => rank > 0 && rank <= top).length;
    const share = (count) => `${count}/${QUERIES.length} (${Math.round((100 * count) / QUERIES.length)}%)`;
    console.log(`tool search quality, ${QUERIES.length} tasks on ${Object.keys(FIVE_APIS).length} APIs`);
    console.log(`  top-1 ${share(within(1))}, top-3 ${share(within(3))}, top-10 ${share(within(10))}`);
    console.log(`  median search ${median(times).toFixed(1)} ms`);
    for (const miss of misses) console.log(`  miss: ${miss}`);
  } finally {
    await host.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await toolSearchQuality();
