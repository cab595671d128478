#!/usr/bin/env node
// The Prism acceptance sweep: installs a fixed sample of the APIs.guru
// corpus (every STEP-th document, default 100, up to MAX_BYTES, default
// 1 MB) through the openapi adapter, sends a request built from every
// tool's input schema to Prism (a mock server that validates requests
// against the document), and prints the share Prism accepted.
//
//   node scripts/prism-sweep.mjs                 # ~27 documents, 15-30 minutes on 2 cores
//   STEP=400 node scripts/prism-sweep.mjs        # a quicker, smaller sample
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const result = spawnSync(
  "pnpm",
  ["--filter", "@cyrnel/openapi", "exec", "vitest", "run", "--config", "vitest.sweep.config.ts", "--silent=false"],
  { cwd: root, stdio: "inherit" },
);
process.exit(result.status ?? 1);
