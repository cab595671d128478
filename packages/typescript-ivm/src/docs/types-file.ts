import { isValidIdentifier, type ToolDocsInput, type TypesOptions } from "@cyrnel/sdk";
import { NamedTypes } from "../schema/named-types.js";
import { description, propertyKey, type Schema } from "../schema/schema.js";
import { docComment, TypeEmitter } from "../schema/to-typescript.js";
import { missingSecretsNote } from "./missing-secrets.js";
import { renderTypesIndex } from "./types-index.js";

const HEADER = `// Types of the cyrnel process runtime (typescript-ivm), for the tools that were enabled when this
// file was generated. Processes are checked against them before they run (unless submitted with
// "typecheck": false) with: lib ["es2023"], types [], strict, useUnknownInCatchVariables false, no
// DOM or Node typings. Process code runs as the body of an async function: to type-check it as
// written (top-level await and return), wrap it in \`async function main() { ... }\`.`;

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
  return [
    HEADER,
    "",
    ...services.map(renderServiceDeclarations),
    renderRuntimeSurface(
      services.map(({ serviceId, namespace, tools }) => {
        const denied = tools.filter((tool) => tool.policy === "deny").map((tool) => tool.toolId);
        return { serviceId, type: { namespace, ...(denied.length > 0 && { denied }) } };
      }),
    ),
  ].join("\n");
}

/**
 * One service's part of the declarations, complete on its own: its tools'
 * parameter and result types and its named types in `CyrnelTools.<service>`,
 * and the service as `cyrnel.services.<service>` sees it, as the interface
 * `CyrnelServices.<service>`. The type checker keeps this text per service
 * (parsed once, until the service changes) beside a small surface file.
 */
export function renderServiceDeclarations(service: ServiceTypes): string {
  const { serviceId, namespace: serviceNs, tools: serviceTools, toolNamespaces: toolNames, types } = service;
  const emitter = new TypeEmitter(types);
  const namespaces: string[] = ["declare namespace CyrnelTools {", `  namespace ${serviceNs} {`];
  const surface: string[] = [
    "declare namespace CyrnelServices {",
    `  /** Service ${JSON.stringify(serviceId)}. */`,
    `  interface ${serviceNs} {`,
    "    readonly tools: {",
  ];
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
    const missing = missingSecretsNote(tool);
    const doc = docComment({
      description: missing === undefined ? tool.description : `${missing}\n\n${tool.description}`,
    });
    if (doc !== undefined) surface.push(indent(doc, "      "));
    surface.push(`      readonly ${propertyKey(tool.toolId)}: CyrnelTool<${ref}.Input, ${ref}.Output>;`);
  });
  for (const type of types.declarations) namespaces.push(emitter.declaration(type, "    "));
  namespaces.push("  }", "}");
  surface.push("    };", "  }", "}");
  return [...namespaces, "", ...surface, ""].join("\n");
}

/**
 * The declarations of one service on their own (see
 * {@link renderServiceDeclarations}), with the namespace they use and the
 * tools they declare: what the type checker keeps per service. `tools` may
 * be empty (a service with nothing callable).
 */
export function renderServiceFile(
  serviceId: string,
  tools: readonly ToolDocsInput[],
): { namespace: string; tools: string[]; text: string } {
  const service = serviceTypes(tools.filter((tool) => tool.serviceId === serviceId))[0] ?? {
    serviceId,
    namespace: namespaceName(serviceId, 0),
    tools: [],
    toolNamespaces: [],
    types: new NamedTypes([], RESERVED),
  };
  return {
    namespace: service.namespace,
    tools: service.tools.map((tool) => tool.toolId),
    text: renderServiceDeclarations(service),
  };
}

/**
 * How `cyrnel.services.<service>` is typed in the surface file: by its
 * interface (`CyrnelServices.<namespace>`), narrowed to some of its tools,
 * or `any` when its declarations are not available.
 */
export type SurfaceService = {
  serviceId: string;
  /** `denied`: tools the service's policy denies, typed so that calling one is an error naming it. */
  type: { namespace: string; onlyTools?: readonly string[]; denied?: readonly string[] } | "any";
};

/** The sandbox's runtime surface: `cyrnel` (with `services` as given), `console`, the timers. */
export function renderRuntimeSurface(services: readonly SurfaceService[]): string {
  const union = (ids: readonly string[]) =>
    ids.length === 0 ? "never" : ids.map((id) => JSON.stringify(id)).join(" | ");
  const entries = services.map(({ serviceId, type }) => {
    let text = "any";
    if (type !== "any") {
      const full = `CyrnelServices.${type.namespace}`;
      const denied = type.denied ?? [];
      if (type.onlyTools === undefined && denied.length === 0) text = full;
      else {
        const tools =
          type.onlyTools === undefined ? `${full}["tools"]` : `Pick<${full}["tools"], ${union(type.onlyTools)}>`;
        const deniedTypes = denied.map(
          (id) => `readonly ${propertyKey(id)}: CyrnelDeniedTool<${JSON.stringify(serviceId)}, ${JSON.stringify(id)}>`,
        );
        text =
          denied.length === 0
            ? `{ readonly tools: ${tools} }`
            : `{ readonly tools: Omit<${tools}, ${union(denied)}> & { ${deniedTypes.join("; ")} } }`;
      }
    }
    return `    readonly ${propertyKey(serviceId)}: ${text};`;
  });
  return [
    "/** A failed tool call: `status` and `code` mirror the host's gate (404 not_found, 409 service_disabled / tool_disabled, 400 validation_failed, 502 adapter_error, 504 invoke_timeout). */",
    "interface CyrnelToolCallError extends Error {",
    '  name: "ToolCallError";',
    "  status: number;",
    "  code: string;",
    "  details?: unknown;",
    "}",
    "",
    "/** A tool: `invoke(params)` resolves with its result; `invoke(params, { withResponse: true })` with the response around it. */",
    "interface CyrnelTool<Input, Output> {",
    "  invoke<WithResponse extends boolean = false>(",
    "    params: Input,",
    "    options?: { withResponse?: WithResponse },",
    "  ): Promise<WithResponse extends true ? CyrnelToolResponse<Output> : Output>;",
    "}",
    "",
    "/** The whole response: `status` and `headers` (names lower case) as far as the service's adapter has them (HTTP APIs: both; otherwise null and {}). */",
    "interface CyrnelToolResponse<Body> {",
    "  status: number | null;",
    "  headers: Record<string, string>;",
    "  body: Body;",
    "}",
    "",
    "/** A tool the service's policy denies: every call fails with 403 tool_denied, so a call to it is refused before the run. */",
    "interface CyrnelDeniedTool<Service extends string, Tool extends string> {",
    '  readonly "denied by the service\'s policy": [Service, Tool];',
    "}",
    "",
    "declare const cyrnel: {",
    "  /** The services and tools enabled for this process. */",
    "  readonly services: {",
    ...entries,
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
    // Two overloads, as in the DOM's and Node's own typings: a callback called with nothing (a promise's
    // resolve, the usual sleep) must not demand the arguments its parameters declare.
    "declare function setTimeout(callback: (...args: any[]) => void, delay?: number): number;",
    "declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, delay: number | undefined, ...args: A): number;",
    "declare function clearTimeout(id: number | undefined): void;",
    "",
    "/** Base64 of a string of Latin-1 characters (bytes); throws for others: encode text with TextEncoder first. */",
    "declare function btoa(data: string): string;",
    "/** The bytes (as a Latin-1 string) of base64 text; ASCII whitespace is skipped. */",
    "declare function atob(data: string): string;",
    "/** UTF-8 only. */",
    "declare class TextEncoder {",
    "  readonly encoding: string;",
    "  encode(input?: string): Uint8Array;",
    "  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };",
    "}",
    "/** UTF-8 only (other labels throw RangeError); no streaming. */",
    "declare class TextDecoder {",
    "  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });",
    "  readonly encoding: string;",
    "  readonly fatal: boolean;",
    "  readonly ignoreBOM: boolean;",
    "  decode(input?: ArrayBufferLike | ArrayBufferView): string;",
    "}",
    "/** A deep copy of plain data (objects, arrays, Date, RegExp, Map, Set, binary data, errors; cycles kept). */",
    "declare function structuredClone<T>(value: T): T;",
    "/** Cryptographically strong random values (the host's generator); a resumed durable run gets the same ones. No `subtle`. */",
    "declare const crypto: {",
    "  /** Fills an integer typed array of at most 65536 bytes with random values and returns it. */",
    "  getRandomValues<T extends Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array>(array: T): T;",
    "  /** A random version 4 UUID, lower case. */",
    "  randomUUID(): string;",
    "};",
    '/** The WHATWG URL: `new URL("/v1/items?page=2", "https://api.example.com")`; throws TypeError for an invalid one. */',
    "declare class URL {",
    "  constructor(url: string | URL, base?: string | URL);",
    "  static canParse(url: string | URL, base?: string | URL): boolean;",
    "  static parse(url: string | URL, base?: string | URL): URL | null;",
    "  href: string;",
    "  readonly origin: string;",
    "  protocol: string;",
    "  username: string;",
    "  password: string;",
    "  host: string;",
    "  hostname: string;",
    "  port: string;",
    "  pathname: string;",
    "  search: string;",
    "  hash: string;",
    "  /** Live: changing it changes `search`, and the other way round. */",
    "  readonly searchParams: URLSearchParams;",
    "  toString(): string;",
    "  toJSON(): string;",
    "}",
    '/** A query string (application/x-www-form-urlencoded): `new URLSearchParams({ q: "a b" }).toString()` is `q=a+b`. */',
    "declare class URLSearchParams {",
    "  constructor(init?: string | Record<string, string> | Iterable<[string, string]> | URLSearchParams);",
    "  readonly size: number;",
    "  append(name: string, value: string): void;",
    "  delete(name: string, value?: string): void;",
    "  get(name: string): string | null;",
    "  getAll(name: string): string[];",
    "  has(name: string, value?: string): boolean;",
    "  set(name: string, value: string): void;",
    "  sort(): void;",
    "  forEach(callback: (value: string, name: string, params: URLSearchParams) => void, thisArg?: unknown): void;",
    "  keys(): IterableIterator<string>;",
    "  values(): IterableIterator<string>;",
    "  entries(): IterableIterator<[string, string]>;",
    "  [Symbol.iterator](): IterableIterator<[string, string]>;",
    "  toString(): string;",
    "}",
    "",
  ].join("\n");
}

/** The root aliases, and names the file itself declares. */
const RESERVED = ["Input", "Output", "CyrnelTools", "CyrnelServices", "CyrnelToolCallError"];

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
