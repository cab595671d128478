/**
 * The two patch forms accepted for config and secrets: a JSON object is an
 * RFC 7386 merge patch (`null` removes a key), a JSON array is an RFC 6902
 * patch. Both return a new document and never mutate their input; a bad
 * operation throws a CyrnelError naming it.
 *
 * Config and secrets documents are small, so patches are bounded well above
 * any real use and well below what would block the host: at most
 * {@link MAX_OPERATIONS} operations, documents and values at most
 * {@link MAX_DEPTH} levels deep (the walks below recurse), and a result of
 * at most {@link MAX_DOCUMENT_BYTES} (`copy` can double a document with
 * every operation). Each limit is checked before the work it bounds.
 */
import { CyrnelError } from "../errors.js";
import { measureJson } from "./json-nesting.js";

export const MAX_OPERATIONS = 1000;
export const MAX_DEPTH = 64;
export const MAX_DOCUMENT_BYTES = 1024 * 1024;

type Json = unknown;
type Operation = { op: string; path?: unknown; from?: unknown; value?: unknown };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function applyMergePatch(target: Json, patch: Json): Json {
  checkDepth(patch, 0, "the patch");
  return mergePatch(target, patch);
}

function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === "__proto__") throw bad(`"__proto__" is not a valid key`);
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

export interface JsonPatchOptions {
  /** Operations that are refused, e.g. `test` on secrets (it would be an oracle for their values). */
  forbidden?: string[];
}

export function applyJsonPatch(document: Json, operations: unknown[], options: JsonPatchOptions = {}): Json {
  if (operations.length > MAX_OPERATIONS) {
    throw bad(`a JSON Patch may have at most ${MAX_OPERATIONS} operations, got ${operations.length}`);
  }
  let doc = structuredClone(document);
  // Removals are not refunded: an upper bound on the document's size that costs one walk per added value.
  let size = measureJson(doc).bytes;
  const grow = (value: Json, path: string[], where: string) => {
    checkDepth(value, path.length, where);
    size += measureJson(value, MAX_DEPTH, MAX_DOCUMENT_BYTES).bytes + path.join("/").length;
    if (size > MAX_DOCUMENT_BYTES) throw bad(`${where}: the document would be larger than ${MAX_DOCUMENT_BYTES} bytes`);
    return value;
  };
  operations.forEach((raw, index) => {
    const where = `patch operation ${index}`;
    if (!isObject(raw) || typeof raw.op !== "string") throw bad(`${where} must be an object with an "op"`);
    const operation = raw as Operation;
    if (options.forbidden?.includes(operation.op)) throw bad(`${where}: "${operation.op}" is not allowed here`);
    const path = pointer(operation.path, `${where} "path"`);
    switch (operation.op) {
      case "add":
        doc = add(doc, path, grow(requireValue(operation, where), path, where), where);
        break;
      case "remove":
        doc = remove(doc, path, where).doc;
        break;
      case "replace":
        get(doc, path, where);
        doc = add(remove(doc, path, where).doc, path, grow(requireValue(operation, where), path, where), where);
        break;
      case "move": {
        const from = pointer(operation.from, `${where} "from"`);
        if (path.length > from.length && from.every((part, i) => part === path[i])) {
          throw bad(`${where}: cannot move a value into itself`);
        }
        const removed = remove(doc, from, where);
        checkDepth(removed.value, path.length, where);
        doc = add(removed.doc, path, removed.value, where);
        break;
      }
      case "copy": {
        const value = get(doc, pointer(operation.from, `${where} "from"`), where);
        doc = add(doc, path, structuredClone(grow(value, path, where)), where);
        break;
      }
      case "test":
        if (!deepEqual(get(doc, path, where), grow(requireValue(operation, where), [], where))) {
          throw bad(`${where}: test failed`);
        }
        break;
      default:
        throw bad(`${where}: unknown op "${operation.op}"`);
    }
  });
  return doc;
}

const bad = (message: string) => new CyrnelError("bad_request", message);

/** Refuses a value that would sit deeper than {@link MAX_DEPTH} once placed `level` levels down. */
function checkDepth(value: Json, level: number, what: string): void {
  if (level + measureJson(value, MAX_DEPTH).depth > MAX_DEPTH) {
    throw bad(`${what} nests deeper than ${MAX_DEPTH} levels`);
  }
}

function requireValue(operation: Operation, where: string): Json {
  if (!("value" in operation)) throw bad(`${where} needs a "value"`);
  return operation.value;
}

function pointer(value: unknown, what: string): string[] {
  if (typeof value !== "string" || (value !== "" && !value.startsWith("/"))) {
    throw bad(`${what} must be a JSON pointer such as "/name"`);
  }
  if (value === "") return [];
  return value
    .slice(1)
    .split("/")
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function get(doc: Json, path: string[], where: string): Json {
  let current = doc;
  for (const part of path) {
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(part) && Number(part) < current.length) {
      current = current[Number(part)];
    } else if (isObject(current) && Object.hasOwn(current, part)) {
      current = current[part];
    } else {
      throw bad(`${where}: path "/${path.join("/")}" does not exist`);
    }
  }
  return current;
}

function add(doc: Json, path: string[], value: Json, where: string): Json {
  if (path.length === 0) return structuredClone(value);
  const parent = get(doc, path.slice(0, -1), where);
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) {
    const index = last === "-" ? parent.length : Number(last);
    if (!/^(0|[1-9]\d*|-)$/.test(last) || index > parent.length) throw bad(`${where}: bad array index "${last}"`);
    parent.splice(index, 0, structuredClone(value));
  } else if (isObject(parent)) {
    if (last === "__proto__") throw bad(`${where}: "__proto__" is not a valid key`);
    parent[last] = structuredClone(value);
  } else {
    throw bad(`${where}: parent of "/${path.join("/")}" is not an object or array`);
  }
  return doc;
}

function remove(doc: Json, path: string[], where: string): { doc: Json; value: Json } {
  if (path.length === 0) return { doc: undefined, value: doc };
  const value = get(doc, path, where);
  const parent = get(doc, path.slice(0, -1), where);
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else delete (parent as Record<string, unknown>)[last];
  return { doc, value };
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** Applies either patch form, as accepted by the config and secrets PATCH routes. */
export function applyPatch(current: Record<string, unknown>, patch: unknown, options: JsonPatchOptions = {}) {
  const next = Array.isArray(patch) ? applyJsonPatch(current, patch, options) : applyMergePatch(current, patch);
  if (!isObject(next)) throw bad("the patch must leave a JSON object");
  return next;
}
