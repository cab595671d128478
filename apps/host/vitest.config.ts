import { defineConfig } from "vitest/config";
import { timeouts } from "../../vitest.shared.mjs";

// The suites run once per database dialect (scripts/test-dialects.mjs sets CYRNEL_TEST_DIALECT): SQLite runs
// every test; PostgreSQL runs the host's end-to-end suites (test/), each test host with a database of its own on
// a throw-away server (test/support/postgres-setup.ts). The dialect is in every project's name, so a failure
// says which database it was on.
const dialect = process.env.CYRNEL_TEST_DIALECT === "postgres" ? "postgres" : "sqlite";
const postgres = dialect === "postgres";

export default defineConfig({
  test: {
    // isolated-vm (loaded by the bundled environment) wants --no-node-snapshot on Node 20; --expose-gc lets a
    // test check that a deadline survives garbage collection (src/lib/deadline-signal.test.ts).
    pool: "forks",
    execArgv: ["--no-node-snapshot", "--expose-gc"],
    // Custom modules the in-process tests load from their data dirs run natively, as under `cyrnel start`: Node's
    // loader then applies module-generation-hooks.mjs, which Vite's module runner would bypass (and cache a
    // reloaded module's older files).
    server: { deps: { external: [/\/cyrnel-test-[^/]+\/modules\//] } },
    ...timeouts,
    globalSetup: postgres ? ["test/support/postgres-setup.ts"] : [],
    env: { CYRNEL_TEST_DIALECT: dialect },
    projects: [
      {
        extends: true,
        test: {
          name: `host (${dialect})`,
          // The unit tests under src/ do not depend on the dialect (SQLite's own are in src/db/): once is enough.
          include: postgres ? ["test/*.test.ts"] : ["src/**/*.test.ts", "test/*.test.ts"],
        },
      },
      // Each of these builds its own host from the same sources, so they share one worker that imports the sources
      // once (not isolated: a file's host is its only state, and each stops its own).
      {
        extends: true,
        test: { name: `in-process (${dialect})`, include: ["test/in-process/**/*.test.ts"], isolate: false },
      },
    ],
  },
});
