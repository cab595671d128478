import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // The sandbox process runs the compiled worker (dist/worker/main.js); build it from the current sources first.
    globalSetup: ["test/support/build.ts"],
    pool: "forks",
    // isolated-vm needs this on Node 20+ in any process that creates isolates (the worker is forked with it too).
    execArgv: ["--no-node-snapshot"],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
