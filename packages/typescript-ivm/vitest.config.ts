import { defineConfig } from "vitest/config";
import { timeouts } from "../../vitest.shared.mjs";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // The sandbox process runs the compiled worker (dist/worker/main.js); build it from the current sources first.
    globalSetup: ["test/support/build.ts"],
    pool: "forks",
    // isolated-vm needs this on Node 20+ in any process that creates isolates (the worker is forked with it too).
    execArgv: ["--no-node-snapshot"],
    ...timeouts,
  },
});
