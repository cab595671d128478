/**
 * A Node module-resolution hook, registered by custom-modules.ts before the
 * first custom module is imported. A custom module's main file is imported
 * as `main.js?generation=N` so that a reloaded or updated module runs its new
 * code, but Node caches every other file by URL: without this hook, the new
 * main would import the *previous* version's `./descriptor.js` from the
 * cache. The hook gives each file imported from a module file the same
 * `generation`, so one load of a module sees one version of all its files.
 * Files that already carry a query, and non-file URLs (`node:`, `data:`),
 * are left alone. Runs on Node's loader thread: no host state in here.
 *
 * Plain JavaScript (types in the .d.mts beside it, copied to dist by the
 * build): Node loads it by itself, on that thread, also when the host runs
 * from its TypeScript sources (the in-process tests).
 */

export const GENERATION_PARAM = "generation";

/** @type {import("node:module").ResolveHook} */
export const resolve = async (specifier, context, nextResolve) => {
  const resolved = await nextResolve(specifier, context);
  const generation = context.parentURL?.startsWith("file:")
    ? new URL(context.parentURL).searchParams.get(GENERATION_PARAM)
    : null;
  if (generation === null || !resolved.url.startsWith("file:")) return resolved;
  const url = new URL(resolved.url);
  if (url.search !== "") return resolved;
  url.searchParams.set(GENERATION_PARAM, generation);
  return { ...resolved, url: url.href };
};
