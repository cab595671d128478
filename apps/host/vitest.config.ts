import { defineConfig } from "vitest/config";

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
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "host", include: ["src/**/*.test.ts", "test/*.test.ts"] } },
      // Each of these builds its own host from the same sources, so they share one worker that imports the sources
      // once (not isolated: a file's host is its only state, and each stops its own).
      { extends: true, test: { name: "in-process", include: ["test/in-process/**/*.test.ts"], isolate: false } },
    ],
  },
});
