import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // isolated-vm (loaded by the bundled environment) wants --no-node-snapshot on Node 20; --expose-gc lets a
    // test check that a deadline survives garbage collection (src/lib/deadline-signal.test.ts).
    pool: "forks",
    execArgv: ["--no-node-snapshot", "--expose-gc"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
