/**
 * Custom modules on disk: `$CYRNEL_DATA_DIR/modules/<id>/module.json` plus
 * its ESM `main`. Loading never throws past this file's callers without a
 * message an operator can act on.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { register } from "node:module";
import { join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type { AdapterModule, EnvironmentModule } from "@cyrnel/sdk";
import { messageOf } from "../../errors.js";
import type { SchemaValidator } from "../../lib/json-schema.js";
import { TimeoutError, withTimeout } from "../../lib/with-timeout.js";
import { checkInstance, MODULE_ID, type ValidManifest, validateManifest } from "./manifest.js";
import { GENERATION_PARAM } from "./module-generation-hooks.mjs";

export interface LoadedModuleCode {
  manifest: ValidManifest;
  instance: AdapterModule | EnvironmentModule;
}

/** Folder names under `modulesDir` that look like module ids (others are ignored, e.g. `.backup` folders). */
export function listModuleFolders(modulesDir: string): string[] {
  if (!existsSync(modulesDir)) return [];
  return readdirSync(modulesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && MODULE_ID.test(entry.name))
    .map((entry) => entry.name)
    .sort();
}

export function readModuleManifest(folder: string, validator: SchemaValidator, hostVersion: string): ValidManifest {
  const file = join(folder, "module.json");
  if (!existsSync(file)) throw new Error("module.json is missing");
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`module.json is not valid JSON: ${(error as Error).message}`);
  }
  const manifest = validateManifest(raw, validator, { requireMain: true, hostVersion });
  const folderName = folder.split(sep).pop();
  if (manifest.id !== folderName)
    throw new Error(`module.json id "${manifest.id}" does not match its folder "${folderName}"`);
  mainPath(folder, manifest);
  return manifest;
}

let generationHooks = false;

/**
 * Imports the module's entry file and instantiates it. `generation` busts
 * Node's ESM cache so a reloaded or updated module runs its new code, in
 * every one of its files (module-generation-hooks.mjs). The old code stays in
 * memory until the host restarts; ESM cannot unload.
 *
 * The import and `instantiate()` are each bounded by `timeoutMs`: code that
 * never settles (a top-level await on nothing) throws a {@link TimeoutError}
 * instead of holding the caller, and the start, forever. The hung code
 * itself cannot be cancelled; it stays pending in the background.
 */
export async function loadCustomModule(
  folder: string,
  validator: SchemaValidator,
  hostVersion: string,
  generation: number,
  timeoutMs: number,
): Promise<LoadedModuleCode> {
  const manifest = readModuleManifest(folder, validator, hostVersion);
  if (!generationHooks) {
    register("./module-generation-hooks.mjs", import.meta.url);
    generationHooks = true;
  }
  let exports: Record<string, unknown>;
  const url = `${pathToFileURL(mainPath(folder, manifest)).href}?${GENERATION_PARAM}=${generation}`;
  try {
    exports = await withTimeout(`importing ${manifest.main}`, timeoutMs, () => import(url));
  } catch (error) {
    if (error instanceof TimeoutError) throw error;
    throw new Error(`importing ${manifest.main} failed: ${messageOf(error)}`);
  }
  const factory = (typeof exports.instantiate === "function" ? exports : exports.default) as
    | { instantiate?: unknown }
    | undefined;
  if (typeof factory?.instantiate !== "function") throw new Error(`${manifest.main} does not export instantiate()`);
  let instance: unknown;
  const instantiate = factory.instantiate as () => unknown;
  try {
    instance = await withTimeout("instantiate()", timeoutMs, async () => instantiate.call(factory));
  } catch (error) {
    if (error instanceof TimeoutError) throw error;
    throw new Error(`instantiate() threw: ${messageOf(error)}`);
  }
  checkInstance(instance, manifest.type);
  return { manifest, instance: instance as AdapterModule | EnvironmentModule };
}

/** Changes whenever module.json or any file of the module changes; reload compares it. */
export function moduleFingerprint(folder: string): string {
  const hash = createHash("sha256");
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(path);
      } else {
        const stat = statSync(path);
        hash.update(`${relative(folder, path)}\u0000${stat.size}\u0000${stat.mtimeMs}\u0000`);
      }
    }
  };
  if (existsSync(folder)) walk(folder);
  return hash.digest("hex");
}

function mainPath(folder: string, manifest: ValidManifest): string {
  const root = resolve(folder);
  const path = resolve(root, manifest.main ?? "");
  if (!path.startsWith(root + sep)) throw new Error(`main "${manifest.main}" points outside the module folder`);
  if (!existsSync(path)) throw new Error(`main file "${manifest.main}" does not exist`);
  return path;
}
