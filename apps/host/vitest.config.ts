import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // isolated-vm (loaded by the bundled environment) wants --no-node-snapshot on Node 20.
    pool: "forks",
    execArgv: ["--no-node-snapshot"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
