// `pnpm test` of the host: the suites once on SQLite, then once on PostgreSQL (a throw-away server the suites
// start themselves). CYRNEL_TEST_DIALECTS picks them (`sqlite`, `postgres`, or both comma-separated; default
// both). Without PostgreSQL's server binaries the run stops before any test, saying what to install, unless only
// SQLite was asked for. Extra arguments go to vitest (a file filter, `-t name`).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

const asked = (process.env.CYRNEL_TEST_DIALECTS ?? "sqlite,postgres")
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean);
const unknown = asked.filter((name) => name !== "sqlite" && name !== "postgres");
if (unknown.length > 0 || asked.length === 0) {
  console.error(`CYRNEL_TEST_DIALECTS: expected sqlite and/or postgres, got "${process.env.CYRNEL_TEST_DIALECTS}"`);
  process.exit(2);
}

if (asked.includes("postgres")) {
  const root = "/usr/lib/postgresql";
  const installed =
    existsSync(root) && readdirSync(root).some((version) => existsSync(join(root, version, "bin", "initdb")));
  if (!installed) {
    console.error(
      "The host's suites also run on PostgreSQL, whose server is not installed here: install Debian's " +
        "`postgresql` package (apt-get install postgresql), or run `CYRNEL_TEST_DIALECTS=sqlite pnpm test` " +
        "to test on SQLite only.",
    );
    process.exit(1);
  }
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
