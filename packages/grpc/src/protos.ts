import { createRequire } from "node:module";
import { protobuf, type ReflectionObject, type Root } from "./protobuf.js";

/**
 * Stage 2a: a set of proto sources → one resolved protobufjs `Root`.
 *
 * Every file of the set is parsed (field names kept as written, comments
 * kept for descriptions). An import must name a file of the set or a
 * well-known type (`google/protobuf/*.proto`, bundled with protobufjs);
 * anything else is refused — the adapter never reads the file system or
 * the network while generating. Every error names the file, the line and
 * the problem: `routes.proto:12: illegal token '}'`. protobufjs reports the
 * line of parse errors itself; for the errors it finds later (a type that
 * does not exist, a name defined twice) the line is where the name is used.
 */

const require = createRequire(import.meta.url);

const WELL_KNOWN: Record<string, () => unknown> = {
  "google/protobuf/descriptor.proto": () => require("protobufjs/google/protobuf/descriptor.json"),
  "google/protobuf/api.proto": () => require("protobufjs/google/protobuf/api.json"),
  "google/protobuf/type.proto": () => require("protobufjs/google/protobuf/type.json"),
  "google/protobuf/source_context.proto": () => require("protobufjs/google/protobuf/source_context.json"),
};
for (const name of ["any", "duration", "empty", "field_mask", "struct", "timestamp", "wrappers"]) {
  const file = `google/protobuf/${name}.proto`;
  WELL_KNOWN[file] = () => protobuf.common.get(file);
}

/** Whether `path` is a well-known type file the adapter provides. */
export function isWellKnownFile(path: string): boolean {
  return Object.hasOwn(WELL_KNOWN, path);
}

/** A definition that does not load, with the file and line it is about. */
export class ProtoError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    problem: string,
  ) {
    super(`${file}${line === undefined ? "" : `:${line}`}: ${problem}`);
    this.name = "ProtoError";
  }
}

/** protobufjs reads the file name for its messages from a property of `parse` (not in its types). */
const parser = protobuf.parse as typeof protobuf.parse & { filename: string | null };

const PARSE_OPTIONS = { keepCase: true, alternateCommentMode: true } as const;

/** Parses `files` into a resolved root; throws {@link ProtoError}. */
export function loadProtos(files: Record<string, string>): Root {
  const root = new protobuf.Root();
  const paths = Object.keys(files).sort();
  const wellKnown = new Set<string>();
  for (const path of paths) {
    const text = files[path]!;
    let parsed: protobuf.IParserResult;
    try {
      parser.filename = path;
      parsed = protobuf.parse(text, root, PARSE_OPTIONS);
    } catch (error) {
      throw located(path, text, error);
    } finally {
      parser.filename = null;
    }
    for (const imported of [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])]) {
      if (Object.hasOwn(files, imported)) continue;
      if (isWellKnownFile(imported)) {
        wellKnown.add(imported);
        continue;
      }
      throw new ProtoError(
        path,
        lineOf(text, new RegExp(`import\\s+(weak\\s+|public\\s+)?["']${escapeRegExp(imported)}["']`)),
        `imports "${imported}", which is neither in the definition's "protos" nor a well-known type (google/protobuf/*.proto)`,
      );
    }
  }
  for (const file of [...wellKnown].sort()) {
    const json = WELL_KNOWN[file]!() as { nested?: Record<string, unknown> };
    try {
      if (json.nested) root.addJSON(json.nested as Record<string, protobuf.AnyNestedObject>);
    } catch (error) {
      throw new ProtoError(file, undefined, `cannot be added: ${messageOf(error)} (does the set redefine it?)`);
    }
  }
  try {
    root.resolveAll();
  } catch (error) {
    throw resolutionError(root, files, error);
  }
  return root;
}

/** A parse error: protobufjs names the file and line itself (`… (a.proto, line 3)`); others get them found. */
function located(path: string, text: string, error: unknown): ProtoError {
  const message = messageOf(error);
  const match = /^(.*) \((?:[^,()]+, )?line (\d+)\)$/.exec(message);
  if (match) return new ProtoError(path, Number(match[2]), match[1]!);
  // "duplicate name 'X' in Namespace .pkg": where the file defines X.
  const duplicate = /duplicate name '([^']+)'/.exec(message);
  if (duplicate) {
    return new ProtoError(
      path,
      lineOf(text, new RegExp(`\\b(message|enum|service|rpc)\\s+${escapeRegExp(duplicate[1]!)}\\b`)),
      `${message} (defined twice in the set)`,
    );
  }
  return new ProtoError(path, undefined, message);
}

/** "no such Type or Enum 'B' in Type .p.A": the file that defines `.p.A`, at the line that uses `B`. */
function resolutionError(root: Root, files: Record<string, string>, error: unknown): ProtoError {
  const message = messageOf(error);
  const match = /'([^']+)' in \w+ (\.[\w.]+)/.exec(message);
  if (match) {
    const owner = safeLookup(root, match[2]!);
    const file = owner?.filename ?? undefined;
    if (file && Object.hasOwn(files, file)) {
      const used = match[1]!;
      const line = lineOf(files[file]!, new RegExp(`(^|[^\\w.])\\.?${escapeRegExp(used)}\\s+\\w+\\s*=`));
      return new ProtoError(file, line, `unknown type "${used}" (used in ${match[2]!.slice(1)})`);
    }
  }
  return new ProtoError(Object.keys(files).sort()[0] ?? "definition", undefined, message);
}

function safeLookup(root: Root, name: string): ReflectionObject | null {
  try {
    return root.lookup(name);
  } catch {
    return null;
  }
}

/** 1-based line of the first match of `pattern` in `text`, or `undefined`. */
export function lineOf(text: string, pattern: RegExp): number | undefined {
  const lines = text.split(/\r?\n/);
  const index = lines.findIndex((line) => pattern.test(line.replace(/\/\/.*$/, "")));
  return index === -1 ? undefined : index + 1;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
