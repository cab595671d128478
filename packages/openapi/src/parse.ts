import SwaggerParser from "@apidevtools/swagger-parser";
import type { OpenAPI } from "openapi-types";
import { checkLimits } from "./limits.js";
import { isLocalRef, pointerOf, refTokens, valueAt } from "./pointer.js";
import { isRecord, type JsonRecord } from "./records.js";
import { validateDocument } from "./validation.js";

/** Bounds on processing one document (defaults in `limits.ts`). */
export interface DefinitionLimits {
  /** Most values once YAML aliases and `$ref`s are expanded. */
  maxValues?: number;
}

/** The OpenAPI family a document belongs to. */
export type SpecVersion = "2.0" | "3.0" | "3.1";

/** A parsed, validated document whose `$ref`s all point inside itself. */
export interface ParsedDocument {
  version: SpecVersion;
  /** The document as written: `$ref`s are kept, later stages resolve them. */
  document: JsonRecord;
}

/** Keys whose values are data (examples, defaults), never schemas or references. */
const DATA_KEYS = new Set(["example", "examples", "default", "enum", "const"]);
const MAX_VALIDATION_LINES = 20;

/**
 * Parse and validate an OpenAPI 3.0/3.1 or Swagger 2.0 document given as
 * JSON or YAML text, with `@apidevtools/swagger-parser`.
 *
 * Pure: the text is handed to the parser through an in-memory resolver and
 * the file and HTTP resolvers are switched off, so nothing is read from
 * disk or the network. External `$ref`s (other files, URLs) are rejected
 * because a single text has nothing to resolve them against.
 */
export async function parseDocument(text: string, limits: DefinitionLimits = {}): Promise<ParsedDocument> {
  if (typeof text !== "string" || text.trim() === "")
    throw new Error("Invalid OpenAPI document: the definition is empty");
  const json = text
    .replace(/^\uFEFF/, "")
    .trimStart()
    .startsWith("{");
  const options = parserOptions(text, json);

  let document: unknown;
  try {
    document = await new SwaggerParser().parse(json ? "definition.json" : "definition.yaml", options);
  } catch (error) {
    throw new Error(describeParseError(error, text, json));
  }
  if (!isRecord(document)) throw new Error("Invalid OpenAPI document: the definition is not an object");

  // Before anything walks the document with its aliases and $refs expanded (checkReferences, validate).
  checkLimits(document, limits.maxValues);
  const references = checkReferences(document);

  const version = versionOf(document);
  // Swagger 2.0 keeps swagger-parser's validation: its checks beyond the schema (duplicate operation ids, path
  // parameters that match the path, …) need the dereferenced document. So does a 3.x document with a `$ref` where
  // the OpenAPI schema allows no Reference Object (see validation.ts).
  const errors = version === "2.0" ? null : validateDocument(document, version, references);
  if (errors === null) await validateDereferenced(document, options);
  else if (errors.length > 0) throw new Error(describeSchemaErrors(errors as unknown as JsonRecord[]));
  return { version, document };
}

/** swagger-parser's own validation, which dereferences the document (in place: hence the copy). */
async function validateDereferenced(document: JsonRecord, options: SwaggerParser.Options): Promise<void> {
  try {
    await new SwaggerParser().validate(structuredClone(document) as unknown as OpenAPI.Document, options);
  } catch (error) {
    throw new Error(describeValidationError(error));
  }
}

function parserOptions(text: string, json: boolean): SwaggerParser.Options {
  return {
    parse: { text: false, binary: false, ...(json ? { yaml: false } : { json: false }) },
    resolve: {
      external: false,
      file: false,
      http: false,
      definition: { order: 1, canRead: true, read: () => text },
    },
    dereference: { circular: "ignore" },
  };
}

function versionOf(document: JsonRecord): SpecVersion {
  if (document.swagger === "2.0") return "2.0";
  return typeof document.openapi === "string" && document.openapi.startsWith("3.1") ? "3.1" : "3.0";
}

/**
 * Every `$ref` must be a local JSON pointer that resolves. Errors name the
 * reference and where it is, as a JSON pointer into the document. Returns
 * the Reference Objects (outside examples and extensions, where `$ref` is
 * data).
 */
export function checkReferences(document: JsonRecord): Set<JsonRecord> {
  const references = new Set<JsonRecord>();
  const checked = new Set<string>();
  // One path, pushed and popped on the way (the document's depth is bounded by checkLimits, which runs first).
  const path: string[] = [];
  const walk = (node: object): void => {
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        const item: unknown = node[index];
        if (typeof item !== "object" || item === null) continue;
        path.push(String(index));
        walk(item);
        path.pop();
      }
      return;
    }
    const record = node as JsonRecord;
    const ref = Object.hasOwn(record, "$ref") ? record.$ref : undefined;
    if (typeof ref === "string") {
      references.add(record);
      if (!checked.has(ref)) checkReference(document, ref, path);
      checked.add(ref);
    }
    for (const key in record) {
      const value = record[key];
      if (typeof value !== "object" || value === null || DATA_KEYS.has(key) || key.startsWith("x-")) continue;
      path.push(key);
      walk(value);
      path.pop();
    }
  };
  walk(document);
  return references;
}

function checkReference(document: JsonRecord, ref: string, path: string[]): void {
  const where = pointerOf(path);
  if (!isLocalRef(ref)) {
    throw new Error(
      `Invalid OpenAPI document: external $ref "${ref}" at ${where} is not supported; ` +
        "install a single self-contained document (bundle external references into it first)",
    );
  }
  let tokens: readonly string[];
  try {
    tokens = refTokens(ref);
  } catch (error) {
    throw new Error(`Invalid OpenAPI document: ${(error as Error).message} (at ${where})`);
  }
  if (valueAt(document, tokens) === undefined) {
    throw new Error(`Invalid OpenAPI document: $ref "${ref}" at ${where} does not resolve to anything in the document`);
  }
}

function describeParseError(error: unknown, text: string, json: boolean): string {
  const raw = error instanceof Error ? error.message : String(error);
  // The parser names its virtual file (an absolute path under the cwd); drop it.
  let message = raw
    .replace(/^Error parsing \S*definition\.(json|yaml):\s*/, "")
    .replaceAll(/\S*definition\.(json|yaml)/g, "the document")
    .trim();
  const position = /at position (\d+)/.exec(message);
  if (json && position) {
    const { line, column } = lineAndColumn(text, Number(position[1]));
    if (!message.includes("line")) message = `${message} (line ${line}, column ${column})`;
  }
  if (error instanceof Error && error.name === "ParserError") return `Invalid ${json ? "JSON" : "YAML"}: ${message}`;
  return `Invalid OpenAPI document: ${message}`;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/**
 * One line per distinct problem, `<JSON pointer> <message>`. swagger-parser's
 * ajv errors (`details`) are preferred over its message text: they name the
 * offending key of an "additional properties" error, which the text leaves
 * out, and the same line (one per `oneOf` branch) is shown once.
 */
function describeValidationError(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const details = isRecord(error) && Array.isArray(error.details) ? error.details.filter(isRecord) : [];
  if (details.length > 0) return describeSchemaErrors(details);
  const fromText = raw
    .replace(/^Swagger schema validation failed\.\s*/, "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return describeLines(fromText);
}

/**
 * ajv errors, one line each. An `if` error (`must match "else" schema`)
 * only says that its branch failed, which the branch's own errors say
 * better.
 */
function describeSchemaErrors(details: JsonRecord[]): string {
  const telling = details.filter((detail) => detail.keyword !== "if");
  return describeLines((telling.length > 0 ? telling : details).map(describeDetail));
}

function describeLines(all: string[]): string {
  const lines = [...new Set(all)];
  const shown = lines.slice(0, MAX_VALIDATION_LINES);
  if (lines.length > shown.length) shown.push(`… and ${lines.length - shown.length} more`);
  return `Invalid OpenAPI document: ${shown.join("; ")}`;
}

function describeDetail(detail: JsonRecord): string {
  const pointer = `#${typeof detail.instancePath === "string" && detail.instancePath !== "" ? detail.instancePath : "/"}`;
  const extra = isRecord(detail.params) ? detail.params.additionalProperty : undefined;
  if (detail.keyword === "additionalProperties" && typeof extra === "string") {
    return `${pointer} must NOT have the additional property "${extra}"`;
  }
  return `${pointer} ${typeof detail.message === "string" ? detail.message : "is invalid"}`;
}
