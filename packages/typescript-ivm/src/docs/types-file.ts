import { isValidIdentifier, type ToolDocsInput } from "@cyrnel/sdk";
import { propertyKey } from "../schema/schema.js";
import { docComment, TypeEmitter } from "../schema/to-typescript.js";

const HEADER = `// Types of the cyrnel process runtime (typescript-ivm), for the tools that were enabled when this
// file was generated. Check process code with: lib ["es2022"], types [], no DOM or Node typings.
// Process code runs as the body of an async function: to type-check it as written (top-level
// await and return), wrap it in \`async function main() { ... }\`.`;

/**
 * A declaration file typing the global `cyrnel` for exactly `tools`:
 * each tool's parameter and result types live in
 * `CyrnelTools.<service>.<tool>.Input` / `.Output`.
 */
export function renderTypes(tools: ToolDocsInput[]): string {
  const byService = new Map<string, ToolDocsInput[]>();
  for (const tool of tools) {
    const list = byService.get(tool.serviceId) ?? [];
    list.push(tool);
    byService.set(tool.serviceId, list);
  }
  const services = [...byService.keys()].sort();

  const namespaces: string[] = [];
  const surface: string[] = [];
  services.forEach((serviceId, serviceIndex) => {
    const serviceNs = namespaceName(serviceId, serviceIndex);
    namespaces.push(`  namespace ${serviceNs} {`);
    surface.push(`    readonly ${propertyKey(serviceId)}: {`, "      readonly tools: {");
    const serviceTools = (byService.get(serviceId) ?? []).sort((a, b) => a.toolId.localeCompare(b.toolId));
    serviceTools.forEach((tool, toolIndex) => {
      const toolNs = namespaceName(tool.toolId, toolIndex);
      const emitter = new TypeEmitter();
      emitter.declare("Input", tool.inputSchema);
      emitter.declare("Output", tool.outputSchema);
      namespaces.push(`    namespace ${toolNs} {`, emitter.render("      "), "    }");
      const ref = `CyrnelTools.${serviceNs}.${toolNs}`;
      const doc = docComment({ description: tool.description });
      if (doc !== undefined) surface.push(`        ${doc}`);
      surface.push(
        `        readonly ${propertyKey(tool.toolId)}: { invoke(params: ${ref}.Input): Promise<${ref}.Output> };`,
      );
    });
    namespaces.push("  }");
    surface.push("      };", "    };");
  });

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

/** The id itself when it passes the host's own id rule; anything else gets a distinct, valid name. */
function namespaceName(id: string, index: number): string {
  const safe = id.replace(/[^A-Za-z0-9_$]/g, "_");
  return isValidIdentifier(id) ? id : `_${index}_${safe}`;
}
