import { defineConfig } from "vitest/config";
import { timeouts } from "../../vitest.shared.mjs";

export default defineConfig({ test: { ...timeouts } });
