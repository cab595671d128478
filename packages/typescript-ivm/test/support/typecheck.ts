import { createRequire } from "node:module";
import type * as TS from "typescript";

// The workspace's TypeScript 5.9 (resolved from this package, as a host or client would).
const ts = createRequire(import.meta.url)("typescript") as typeof TS;

export const typescriptVersion = ts.version;

/**
 * Type-checks in-memory files the way process code should be checked
 * against the generated declarations: strict, ES2022 library only, no
 * ambient Node or DOM types. Returns "file: message" per diagnostic.
 */
export function typeErrors(files: Record<string, string>): string[] {
  const options: TS.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    lib: ["lib.es2022.d.ts"],
    types: [],
  };
  const paths = Object.fromEntries(Object.entries(files).map(([name, text]) => [`/virtual/${name}`, text]));
  const host = ts.createCompilerHost(options);
  const defaultGetSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const text = paths[fileName];
    return text === undefined
      ? defaultGetSourceFile(fileName, languageVersion, onError, shouldCreate)
      : ts.createSourceFile(fileName, text, languageVersion, true);
  };
  const defaultFileExists = host.fileExists.bind(host);
  const defaultReadFile = host.readFile.bind(host);
  host.fileExists = (fileName) => fileName in paths || defaultFileExists(fileName);
  host.readFile = (fileName) => paths[fileName] ?? defaultReadFile(fileName);
  const program = ts.createProgram(Object.keys(paths), options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file?.fileName.replace("/virtual/", "") ?? "";
    return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
  });
}
