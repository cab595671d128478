import { createRequire } from "node:module";
import type { EnvironmentModule, ModuleManifest } from "@cyrnel/sdk";
import { CONFIG_SCHEMA } from "./config.js";
import { TypeScriptIvmEnvironment } from "./environment.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

export const manifest: ModuleManifest = {
  id: "typescript-ivm",
  name: "TypeScript (isolated-vm)",
  description:
    "Runs TypeScript (types stripped, no type-check) as the body of an async function in an isolated-vm sandbox of its own, with cyrnel.services, cyrnel.output, console and setTimeout.",
  type: "environment",
  version,
  configSchema: CONFIG_SCHEMA,
};

export function instantiate(): EnvironmentModule {
  return new TypeScriptIvmEnvironment();
}
