import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Where test protos come from: this package's fixtures, then Google's published protos (`google-proto-files`). */
export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures");
export const GOOGLE_PROTOS = dirname(createRequire(import.meta.url).resolve("google-proto-files/package.json"));
export const INCLUDE_DIRS = [FIXTURES, GOOGLE_PROTOS];

function read(path: string): string {
  for (const dir of INCLUDE_DIRS) {
    try {
      return readFileSync(join(dir, path), "utf8");
    } catch {}
  }
  throw new Error(`test proto "${path}" not found`);
}

/**
 * The definition's `protos` for `entries`: each file and, transitively,
 * every file it imports, except the well-known types the adapter provides.
 */
export function protoSet(entries: string[]): Record<string, string> {
  const files: Record<string, string> = {};
  const queue = [...entries];
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    if (path in files || path.startsWith("google/protobuf/")) continue;
    const text = read(path);
    files[path] = text;
    for (const match of text.matchAll(/^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"\s*;/gm)) queue.push(match[1]!);
  }
  return files;
}

/** The definition text installing `entries` (and their imports). */
export function protosDefinition(entries: string[], target?: string): string {
  return JSON.stringify({ protos: protoSet(entries), ...(target ? { target } : {}) });
}
