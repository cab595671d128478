import { defineConfig } from "vitest/config";

/** `scripts/prism-sweep.mjs`: the Prism acceptance sweep over a larger corpus sample (not part of `pnpm test`). */
export default defineConfig({
  test: { include: ["sweep/**/*.sweep.ts"], testTimeout: 24 * 3_600_000, hookTimeout: 600_000 },
});
