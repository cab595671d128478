import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The host serves the build at /ui/ under a CSP without 'unsafe-inline': every script and style must be a file.
export default defineConfig({
  base: "/ui/",
  plugins: [react()],
  resolve: {
    // @rjsf/core imports its ajv validator only for a test helper; see src/forms/no-ajv-validator.ts.
    alias: { "@rjsf/validator-ajv8": fileURLToPath(new URL("src/forms/no-ajv-validator.ts", import.meta.url)) },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // Hashed names under assets/ are what the host caches for a year; index.html is revalidated every time.
    assetsDir: "assets",
    // Small assets would otherwise be inlined as data: URLs, and fonts or scripts that way would break the CSP.
    assetsInlineLimit: 0,
    // The polyfill is a script of its own in the entry chunk; every browser the console targets has modulepreload.
    modulePreload: { polyfill: false },
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
  },
});
