/**
 * Node module hooks that let a test spawn a child process running the
 * host's TypeScript sources directly (Node 20 cannot strip types): `.js`
 * imports that name a `.ts` source resolve to it, and `.ts` files are
 * transpiled with the repository's TypeScript (no type check; the
 * typecheck script does that). Registered by ts-register.mjs:
 * `node --import ./test/support/ts-register.mjs child.ts`.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (specifier.endsWith(".js") && context.parentURL?.startsWith("file:")) {
      const candidate = new URL(specifier.replace(/\.js$/, ".ts"), context.parentURL);
      if (existsSync(fileURLToPath(candidate))) return { url: candidate.href, shortCircuit: true };
    }
    throw error;
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith("file:") || !url.endsWith(".ts")) return nextLoad(url, context);
  const source = readFileSync(fileURLToPath(url), "utf8");
  const { outputText } = ts.transpileModule(source, {
    fileName: fileURLToPath(url),
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      sourceMap: false,
    },
  });
  return { format: "module", source: outputText, shortCircuit: true };
}
