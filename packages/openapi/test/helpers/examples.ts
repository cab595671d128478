import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The folder of the `@readme/oas-examples` package. */
export const EXAMPLES_ROOT = dirname(createRequire(import.meta.url).resolve("@readme/oas-examples/package.json"));

/** Every example document (all versions, JSON and YAML), as paths relative to the package root, sorted. */
export function exampleFiles(): string[] {
  return (readdirSync(EXAMPLES_ROOT, { recursive: true }) as string[])
    .map((file) => file.split("\\").join("/"))
    .filter((file) => /^(2\.0|3\.0|3\.1)\/(json|yaml)\/.+\.(json|yaml)$/.test(file))
    .sort();
}

export function readExample(file: string): string {
  return readFileSync(join(EXAMPLES_ROOT, file), "utf8");
}
