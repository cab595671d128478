import { isValidIdentifier, type ToolDocsInput, type TypesOptions } from "@cyrnel/sdk";
import { NamedTypes } from "../schema/named-types.js";
import { description, propertyKey, type Schema } from "../schema/schema.js";
import { docComment, TypeEmitter } from "../schema/to-typescript.js";
import { renderTypesIndex } from "./types-index.js";

const HEADER = `// Types of the cyrnel process runtime (typescript-ivm), for the tools that were enabled when this
// file was generated. Check process code with: lib ["es2022"], types [], no DOM or Node typings.
// Process code runs as the body of an async function: to type-check it as written (top-level
// await and return), wrap it in \`async function main() { ... }\`.`;

/**
 * A declaration file typing the global `cyrnel` for exactly `tools`:
 * each tool's parameter and result types live in
 * `CyrnelTools.<service>.<tool>.Input` / `.Output`, and the named types of
 * a service (its `$defs`) are declared once in `CyrnelTools.<service>` and
 * used by name everywhere. With `options.maxChars`, a longer file is
 * replaced by an index of the tools ({@link renderTypesIndex}).
 */
export function renderTypes(tools: ToolDocsInput[], options: TypesOptions = {}): string {
  const services = serviceTypes(tools);
  const full = renderDeclarations(services);
  if (options.maxChars === undefined || full.length <= options.maxChars) return full;
  return renderTypesIndex(services, {
    maxChars: options.maxChars,
    narrowHint: options.narrowHint,
    fullChars: full.length,
  });
}

/**
 * The tools of one service and the named types of their schemas. Root
 * `2 * i` of `types` is the input of `tools[i]`, root `2 * i + 1` its output.
 */
export interface ServiceTypes {
  serviceId: string;
  namespace: string;
  tools: ToolDocsInput[];
  toolNamespaces: string[];
  types: NamedTypes;
}

/** Tools grouped by service, services and tools sorted by id (so the same tools give the same file). */
export function serviceTypes(tools: readonly ToolDocsInput[]): ServiceTypes[] {
  const byService = new Map<string, ToolDocsInput[]>();
  for (const tool of tools) {
    const list = byService.get(tool.serviceId) ?? [];
    list.push(tool);
    byService.set(tool.serviceId, list);
  }
  return [...byService.entries()]
    .sort(([a], [b]) => compare(a, b))
    .map(([serviceId, list], serviceIndex) => {
      const serviceTools = [...list].sort((a, b) => compare(a.toolId, b.toolId));
      const toolNamespaces = serviceTools.map((tool, toolIndex) => namespaceName(tool.toolId, toolIndex));
      const types = new NamedTypes(
        serviceTools.flatMap((tool, toolIndex) => [
          { schema: tool.inputSchema, alias: `${toolNamespaces[toolIndex]}.Input` },
          { schema: tool.outputSchema, alias: `${toolNamespaces[toolIndex]}.Output` },
        ]),
        [...RESERVED, ...toolNamespaces],
      );
      return {
        serviceId,
        namespace: namespaceName(serviceId, serviceIndex),
        tools: serviceTools,
        toolNamespaces,
        types,
      };
    });
}

function renderDeclarations(services: ServiceTypes[]): string {
  const namespaces: string[] = [];
  const surface: string[] = [];
  for (const { serviceId, namespace: serviceNs, tools: serviceTools, toolNamespaces: toolNames, types } of services) {
    const emitter = new TypeEmitter(types);
    namespaces.push(`  namespace ${serviceNs} {`);
    surface.push(`    readonly ${propertyKey(serviceId)}: {`, "      readonly tools: {");
    serviceTools.forEach((tool, toolIndex) => {
      const toolNs = toolNames[toolIndex]!;
      namespaces.push(
        `    namespace ${toolNs} {`,
        indent(`type Input = ${emitter.root(2 * toolIndex)};`, "      "),
        ...rootComment(tool.outputSchema, "      "),
        indent(`type Output = ${emitter.root(2 * toolIndex + 1)};`, "      "),
        "    }",
      );
      const ref = `CyrnelTools.${serviceNs}.${toolNs}`;
      const doc = docComment({ description: tool.description });
      if (doc !== undefined) surface.push(indent(doc, "        "));
      surface.push(
        `        readonly ${propertyKey(tool.toolId)}: { invoke(params: ${ref}.Input): Promise<${ref}.Output> };`,
      );
    });
    for (const type of types.declarations) namespaces.push(emitter.declaration(type, "    "));
    namespaces.push("  }");
    surface.push("      };", "    };");
  }

  return [
    HEADER,
    "",
    "declare namespace CyrnelTools {",
    ...namespaces,
    "}",
    "",
    "/** A failed tool call: `status` and `code` mirror the host's gate (404 not_found, 409 service_disabled / tool_disabled, 400 validation_failed, 502 adapter_error, 504 invoke_timeout). */",
    "interface CyrnelToolCallError extends Error {",
    '  name: "ToolCallError";',
    "  status: number;",
    "  code: string;",
    "  details?: unknown;",
    "}",
    "",
    "declare const cyrnel: {",
    "  /** The services and tools enabled for this process. */",
    "  readonly services: {",
    ...surface,
    "  };",
    "  /** Shallow-merges `patch` (a JSON-serialisable object) into the process output. */",
    "  output(patch: Record<string, unknown>): void;",
    "};",
    "",
    "/** One line per call: log/info/debug go to stdout, warn/error to stderr. */",
    "declare const console: {",
    "  log(...args: unknown[]): void;",
    "  info(...args: unknown[]): void;",
    "  debug(...args: unknown[]): void;",
    "  warn(...args: unknown[]): void;",
    "  error(...args: unknown[]): void;",
    "};",
    "",
    "/** Timers end with the process: a timer still pending when the code finishes never fires. */",
    "declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, delay?: number, ...args: A): number;",
    "declare function clearTimeout(id: number | undefined): void;",
    "",
  ].join("\n");
}

/** The root aliases, and names the file itself declares. */
const RESERVED = ["Input", "Output", "CyrnelTools", "CyrnelToolCallError"];

/** Code-unit order: the same everywhere (`localeCompare` depends on the ICU data of the runtime). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The description of an output (the answer's own words, such as "Successful response"), as a comment. */
function rootComment(schema: Schema, prefix: string): string[] {
  const doc = docComment({ description: description(schema) });
  return doc === undefined ? [] : [indent(doc, prefix)];
}

function indent(text: string, prefix: string): string {
  return text.replace(/^/gm, prefix);
}

/** The id itself when it passes the host's own id rule; anything else gets a distinct, valid name. */
function namespaceName(id: string, index: number): string {
  const safe = id.replace(/[^A-Za-z0-9_$]/g, "_");
  return isValidIdentifier(id) ? id : `_${index}_${safe}`;
}
