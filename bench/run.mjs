// Runs every benchmark and prints a summary table of ratios.
import { concurrency } from "./concurrency.mjs";
import { installLarge } from "./install-large.mjs";
import { processRoundtrip } from "./process-roundtrip.mjs";
import { toolCalls } from "./tool-calls.mjs";
import { toolSearch } from "./tool-search.mjs";
import { toolsList } from "./tools-list.mjs";
import { typecheck } from "./typecheck.mjs";
import { typesSize } from "./types-size.mjs";

const results = [];
for (const bench of [
  processRoundtrip,
  toolCalls,
  concurrency,
  installLarge,
  toolsList,
  toolSearch,
  typesSize,
  typecheck,
])
  results.push(...(await bench()));
console.log("\nsummary (ratio = cyrnel / baseline; lower is better, except throughput where higher is better)");
for (const result of results) console.log(`  ${result.ratio.toFixed(2).padStart(8)}×  ${result.name}`);
