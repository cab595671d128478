// Fails loudly when an install silently skipped a native build (pnpm only
// runs install scripts for packages listed in pnpm.onlyBuiltDependencies).
import { createRequire } from "node:module";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const checks = [
  ["apps/host", "better-sqlite3", (m) => new m(":memory:").prepare("select 1 as one").get().one === 1],
  [
    "packages/typescript-ivm",
    "isolated-vm",
    (m) => {
      const isolate = new m.Isolate({ memoryLimit: 16 });
      try {
        return isolate.compileScriptSync("1 + 1").runSync(isolate.createContextSync()) === 2;
      } finally {
        isolate.dispose();
      }
    },
  ],
];

let failed = false;
for (const [workspace, name, probe] of checks) {
  try {
    const require = createRequire(join(root, workspace, "package.json"));
    if (!probe(require(name))) throw new Error("probe returned an unexpected value");
    console.log(`native ok: ${name}`);
  } catch (error) {
    failed = true;
    console.error(`native build missing or broken: ${name} (${workspace}): ${error.message}`);
  }
}
if (failed) process.exit(1);
