import { isRecord } from "./records.js";

/**
 * Stage 1: the definition text → what to read the service from. Three
 * forms (the README lists them with examples):
 *
 * - JSON `{"protos": {"<path>.proto": "<source>", …}, "target"?: "host:port"}`:
 *   a set of proto files; imports are resolved inside the set, plus the
 *   well-known types (`google/protobuf/*.proto`).
 * - JSON `{"reflection": "host:port", "tls"?: boolean}`: read the services
 *   from the server's reflection service at install time.
 * - Anything else: the text of one `.proto` file (named `service.proto` in
 *   messages).
 *
 * A text starting with `{` is JSON (a proto file cannot start with one).
 */
export type Source =
  | { kind: "protos"; files: Record<string, string>; target?: string }
  | { kind: "reflection"; address: string; tls: boolean };

/** The name a single-file definition has in messages and imports. */
export const SINGLE_FILE_NAME = "service.proto";

const ADDRESS = /^[^\s/]+:\d{1,5}$|^unix:|^dns:|^ipv4:|^ipv6:/;

export function readSource(text: string): Source {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith("{")) return { kind: "protos", files: { [SINGLE_FILE_NAME]: text } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`Invalid gRPC definition: a text starting with "{" must be JSON: ${(error as Error).message}`);
  }
  if (!isRecord(parsed)) throw new Error("Invalid gRPC definition: the JSON must be an object");
  const keys = Object.keys(parsed);
  if ("protos" in parsed) {
    const extra = keys.filter((key) => key !== "protos" && key !== "target");
    if (extra.length > 0) throw new Error(`Invalid gRPC definition: unknown key "${extra[0]}" next to "protos"`);
    const protos = parsed.protos;
    if (!isRecord(protos) || Object.keys(protos).length === 0) {
      throw new Error(`Invalid gRPC definition: "protos" must map file paths to proto sources (at least one)`);
    }
    for (const [path, source] of Object.entries(protos)) {
      if (typeof source !== "string") throw new Error(`Invalid gRPC definition: protos["${path}"] must be a string`);
      if (path === "" || path.startsWith("/") || path.split("/").includes("..")) {
        throw new Error(`Invalid gRPC definition: "${path}" is not a relative proto path`);
      }
    }
    const target = parsed.target;
    if (target !== undefined && !(typeof target === "string" && ADDRESS.test(target))) {
      throw new Error(`Invalid gRPC definition: "target" must be "host:port"`);
    }
    return { kind: "protos", files: protos as Record<string, string>, ...(target === undefined ? {} : { target }) };
  }
  if ("reflection" in parsed) {
    const extra = keys.filter((key) => key !== "reflection" && key !== "tls");
    if (extra.length > 0) throw new Error(`Invalid gRPC definition: unknown key "${extra[0]}" next to "reflection"`);
    const address = parsed.reflection;
    if (typeof address !== "string" || !ADDRESS.test(address)) {
      throw new Error(`Invalid gRPC definition: "reflection" must be the server's "host:port"`);
    }
    if (parsed.tls !== undefined && typeof parsed.tls !== "boolean") {
      throw new Error(`Invalid gRPC definition: "tls" must be a boolean`);
    }
    return { kind: "reflection", address, tls: parsed.tls === true };
  }
  throw new Error(`Invalid gRPC definition: the JSON needs "protos" or "reflection"`);
}
