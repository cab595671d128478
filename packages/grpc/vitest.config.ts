import { defineConfig } from "vitest/config";
import { timeouts } from "../../vitest.shared.mjs";

export default defineConfig({
  test: { include: ["src/**/*.test.ts", "test/**/*.test.ts"], ...timeouts },
});
