import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

/**
 * Writes a Brotli (`.br`) and a gzip (`.gz`) copy beside each text file of the build, at the best ratio, once: the
 * host sends the one the browser accepts as is (apps/host/src/http/console-assets.ts) and never compresses on a
 * request. Files under 1 KiB are left alone (the headers would outweigh the saving).
 */
function precompress(): Plugin {
  return {
    name: "cyrnel-precompress",
    apply: "build",
    writeBundle(options, bundle) {
      for (const [name, file] of Object.entries(bundle)) {
        if (!/\.(js|css|html|svg|json|txt)$/.test(name)) continue;
        const source = file.type === "chunk" ? file.code : file.source;
        const bytes = typeof source === "string" ? Buffer.from(source) : Buffer.from(source);
        if (bytes.byteLength < 1024) continue;
        const path = join(options.dir!, name);
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(bytes, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
              [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
            },
          }),
        );
        writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
      }
    },
  };
}

// The host serves the build at /ui/ under a CSP without 'unsafe-inline': every script and style must be a file.
export default defineConfig({
  base: "/ui/",
  plugins: [react(), precompress()],
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
    // Sizes with gzip are printed by the build itself; the .br/.gz copies are made by precompress() above.
    reportCompressedSize: true,
  },
});
