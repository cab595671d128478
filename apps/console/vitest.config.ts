import { defineConfig } from "vitest/config";
import { timeouts } from "../../vitest.shared.mjs";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    // The browser suite starts a real host and a real Chromium: one file at a time keeps a 2-core machine usable.
    fileParallelism: false,
    ...timeouts,
  },
});
