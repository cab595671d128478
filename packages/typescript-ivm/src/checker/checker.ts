import { dirname } from "node:path";
import ts from "typescript";
import { renderRuntimeSurface, type SurfaceService } from "../docs/types-file.js";
import { CODE_FILE_NAME, type TypeErrorLine, userPosition, wrapCode } from "./code-file.js";
import type { CheckedService } from "./protocol.js";

/**
 * How code is checked. Strict, because the point is to catch what would
 * fail at run time (a `null` passed where the schema wants a value, a
 * misspelt parameter); but a caught value is `any`, as LLM-written code
 * reads `e.message` in a `catch` all the time and the sandbox only ever
 * throws Errors at it. The library is what the sandbox's V8 has (ES2023),
 * with no DOM or Node typings: the runtime surface is declared separately.
 */
export const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2023.d.ts"],
  types: [],
  strict: true,
  useUnknownInCatchVariables: false,
  noEmit: true,
  skipLibCheck: true,
  moduleDetection: ts.ModuleDetectionKind.Legacy,
  // The standard library is TypeScript's own: no search of node_modules for `@typescript/lib-*` replacements, which
  // every program whose files changed (the first check after a start or a declaration) paid for again.
  libReplacement: false,
};

/** TypeScript's binder (internal, not in its typings): absent in a TypeScript without it, which then binds in the first check. */
export const bindSourceFile = (
  ts as unknown as { bindSourceFile?: (file: ts.SourceFile, options: ts.CompilerOptions) => void }
).bindSourceFile;

const ROOT = "/cyrnel";
const codePath = (index: number) => `${ROOT}/programs/${index}/${CODE_FILE_NAME}`;
const SURFACE_PATH = `${ROOT}/surface.d.ts`;
const servicePath = (serviceId: string) => `${ROOT}/services/${serviceId}.d.ts`;

interface DeclaredService {
  namespace: string;
  tools: ReadonlySet<string>;
  file: ts.SourceFile;
}

/**
 * A warm TypeScript compiler: the standard library and every service's
 * declarations are parsed once and kept (a service's again only when it is
 * declared anew), and each check builds a program from them, a small
 * surface file and the code, reusing the previous program, so that only
 * the code is parsed and only what it touches is checked.
 */
export class Checker {
  private readonly libFiles = new Map<string, ts.SourceFile | undefined>();
  private readonly services = new Map<string, DeclaredService>();
  private surface: ts.SourceFile | undefined;
  /** The programs of the current check, by file name. */
  private readonly code = new Map<string, ts.SourceFile>();
  private previous: ts.Program | undefined;
  private readonly libDir = dirname(ts.getDefaultLibFilePath(COMPILER_OPTIONS));
  private readonly host: ts.CompilerHost = {
    getSourceFile: (fileName) => this.sourceFile(fileName),
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    getDefaultLibLocation: () => this.libDir,
    writeFile: () => {},
    getCurrentDirectory: () => ROOT,
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    fileExists: (fileName) => this.sourceFile(fileName) !== undefined,
    readFile: (fileName) => this.sourceFile(fileName)?.text,
  };

  /**
   * Parses a service's declarations now (not during a check, whose time is
   * budgeted), and binds them (the compiler keeps a file's binding with it,
   * as its parse), so the first program that calls the service does not pay
   * for that either.
   */
  declare(serviceId: string, namespace: string, tools: readonly string[], text: string): void {
    const file = ts.createSourceFile(servicePath(serviceId), text, ts.ScriptTarget.ES2022, false);
    this.services.set(serviceId, { namespace, tools: new Set(tools), file });
    bindSourceFile?.(file, COMPILER_OPTIONS);
  }

  /** Drops a service's declarations (those of the thread's own warm-up). */
  forget(serviceId: string): void {
    this.services.delete(serviceId);
  }

  /**
   * Each program's errors, in the user's lines and columns (syntax errors
   * alone when it has any). The programs are files of one compiler program:
   * what does not depend on the code is done once for all of them.
   */
  check(programs: readonly string[], services: readonly CheckedService[]): TypeErrorLine[][] {
    const surface: SurfaceService[] = [];
    const rootNames = [SURFACE_PATH];
    for (const service of services) {
      const declared = service.declared ? this.services.get(service.serviceId) : undefined;
      if (declared === undefined) {
        surface.push({ serviceId: service.serviceId, type: "any" });
        continue;
      }
      rootNames.push(servicePath(service.serviceId));
      const reachable = service.tools.filter((tool) => declared.tools.has(tool));
      const all = reachable.length === declared.tools.size;
      const denied = service.denied?.filter((tool) => declared.tools.has(tool)) ?? [];
      surface.push({
        serviceId: service.serviceId,
        type: {
          namespace: declared.namespace,
          ...(all ? {} : { onlyTools: reachable }),
          ...(denied.length > 0 && { denied }),
        },
      });
    }
    const surfaceText = renderRuntimeSurface(surface);
    if (this.surface?.text !== surfaceText) {
      this.surface = ts.createSourceFile(SURFACE_PATH, surfaceText, ts.ScriptTarget.ES2022, false);
    }
    this.code.clear();
    programs.forEach((code, index) => {
      const fileName = codePath(index);
      this.code.set(fileName, ts.createSourceFile(fileName, wrapCode(code), ts.ScriptTarget.ES2022, false));
      rootNames.push(fileName);
    });
    const program = ts.createProgram({
      rootNames,
      options: COMPILER_OPTIONS,
      host: this.host,
      ...(this.previous === undefined ? {} : { oldProgram: this.previous }),
    });
    this.previous = program;
    return programs.map((code, index) => {
      const file = this.code.get(codePath(index)) as ts.SourceFile;
      const syntactic = program.getSyntacticDiagnostics(file);
      const diagnostics = syntactic.length > 0 ? syntactic : program.getSemanticDiagnostics(file);
      return diagnostics
        .filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error)
        .map((diagnostic) => {
          const at = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
          return {
            ...userPosition(code, at.line, at.character),
            code: diagnostic.code,
            message: sandboxMessage(diagnostic.code, ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")),
          };
        });
    });
  }

  private sourceFile(fileName: string): ts.SourceFile | undefined {
    const code = this.code.get(fileName);
    if (code !== undefined) return code;
    if (fileName === SURFACE_PATH) return this.surface;
    if (fileName.startsWith(`${ROOT}/services/`)) {
      const serviceId = fileName.slice(`${ROOT}/services/`.length, -".d.ts".length);
      return this.services.get(serviceId)?.file;
    }
    // The standard library, read from TypeScript's own folder once.
    if (!this.libFiles.has(fileName)) {
      const text = fileName.startsWith(this.libDir) ? ts.sys.readFile(fileName) : undefined;
      this.libFiles.set(
        fileName,
        text === undefined ? undefined : ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, false),
      );
    }
    return this.libFiles.get(fileName);
  }
}

/**
 * TypeScript's hints for a missing global or module point at what a sandboxed program cannot use: an npm package
 * of type definitions, a tsconfig's `lib` or `types`. Said instead: what the sandbox is, and how tools are called.
 */
const MISSING_GLOBAL = new Set([2580, 2581, 2582, 2583, 2584, 2591, 2592, 2593, 2867, 2868]);
/** A module not found, and a dynamic import (TS1323, which points at a `--module` flag). */
const MISSING_MODULE = new Set([2307, 2792, 1323]);
/** The type of a denied tool (`CyrnelDeniedTool<"service", "tool">`, see renderRuntimeSurface), in a message. */
const DENIED_TYPE = /CyrnelDeniedTool<("(?:[^"\\]|\\.)*", "(?:[^"\\]|\\.)*")>/;
const CALL_TOOLS = "call tools with `await cyrnel.services.<serviceId>.tools.<toolId>.invoke({...})`";

export function sandboxMessage(code: number, message: string): string {
  const denied = DENIED_TYPE.exec(message);
  if (denied !== null) {
    const [serviceId, toolId] = JSON.parse(`[${denied[1]}]`) as [string, string];
    return (
      `Tool '${toolId}' of service '${serviceId}' is denied by the service's policy: every call fails with ` +
      "403 tool_denied, so the code did not run (any call before it would have been made); remove the call, or " +
      "ask an operator to change the policy"
    );
  }
  if (MISSING_GLOBAL.has(code)) {
    const name = /'([^']+)'/.exec(message)?.[1] ?? "it";
    return (
      `Cannot find name '${name}': the sandbox is neither Node.js nor a browser, so it has no '${name}', ` +
      `and nothing can be installed; ${CALL_TOOLS}`
    );
  }
  if (MISSING_MODULE.has(code)) {
    const name = code === 1323 ? undefined : /'([^']+)'/.exec(message)?.[1];
    const what = name === undefined ? "Cannot import a module" : `Cannot find module '${name}'`;
    return `${what}: the sandbox cannot import or require modules; ${CALL_TOOLS}`;
  }
  return message;
}
