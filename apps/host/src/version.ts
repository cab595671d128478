import { createRequire } from "node:module";

/** The host's own version, from its package.json (shipped with the package). */
export const HOST_VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string }).version;
