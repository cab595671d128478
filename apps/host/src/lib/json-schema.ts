/**
 * JSON Schema validation for module-provided schemas (tool inputs, service
 * and module config/secrets). The draft is chosen by `$schema` (draft-07
 * when absent), compiled functions are cached by schema text, and
 * validation never mutates the caller's data.
 *
 * Defaults are filled in only where the host keeps the result (config):
 * tool parameters are validated as sent (`applyDefaults: false`). A default
 * the caller never asked for is never sent either, so it must not decide
 * whether the call is valid (documents are full of defaults that break
 * their own schema, like ably's `limit: "100"` for an integer).
 */
import type { JSONSchema } from "@cyrnel/sdk";
import AjvDraft7, { type ErrorObject, type ValidateFunction } from "ajv";
import Ajv2019 from "ajv/dist/2019.js";
import Ajv2020 from "ajv/dist/2020.js";
import addFormatsPlugin from "ajv-formats";

// ajv and ajv-formats are CommonJS with `exports.default`; under NodeNext the default import is the module object.
type AjvInstance = InstanceType<typeof AjvDraft7.default>;
const addFormats = addFormatsPlugin as unknown as (ajv: AjvInstance) => AjvInstance;

export interface ValidationResult {
  valid: boolean;
  /** A copy of the data, with schema defaults applied unless `applyDefaults` is false. */
  value: unknown;
  errors: ValidationIssue[];
}

export interface ValidateOptions {
  /** Fill in schema defaults (default true). Off for tool parameters: they are validated as sent. */
  applyDefaults?: boolean;
}

type Engines = Record<"draft7" | "2019" | "2020", AjvInstance>;

export interface ValidationIssue {
  /** JSON pointer of the offending value, e.g. `/limit`. */
  path: string;
  message: string;
}

export class SchemaValidator {
  private readonly engines: Engines;
  private readonly exactEngines: Engines;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor() {
    this.engines = engines(true);
    this.exactEngines = engines(false);
  }

  /** Whether `schema` is itself a valid schema for its draft; returns the problem otherwise. */
  checkSchema(schema: JSONSchema): string | null {
    if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return "schema must be an object";
    const engine = this.engineFor(schema);
    try {
      if (engine.validateSchema(stripIds(schema)) === true) return null;
      return engine.errorsText(engine.errors, { dataVar: "schema" });
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  validate(schema: JSONSchema, data: unknown, options: ValidateOptions = {}): ValidationResult {
    const validate = this.compile(schema, options);
    const value = structuredClone(data);
    const valid = validate(value) === true;
    return { valid, value, errors: valid ? [] : describeIssues(validate.errors ?? []) };
  }

  /** Throws if the schema cannot be compiled (e.g. an unresolvable `$ref`). */
  compile(schema: JSONSchema, options: ValidateOptions = {}): ValidateFunction {
    const applyDefaults = options.applyDefaults !== false;
    const key = `${applyDefaults ? "d" : "x"}${JSON.stringify(schema)}`;
    let validate = this.cache.get(key);
    if (!validate) {
      // `$id`s would register globally in the shared ajv instance and clash between tools; they are not needed here.
      validate = this.engineFor(schema, applyDefaults ? this.engines : this.exactEngines).compile(stripIds(schema));
      this.cache.set(key, validate);
    }
    return validate;
  }

  private engineFor(schema: JSONSchema, from: Engines = this.engines): AjvInstance {
    const declared = typeof schema.$schema === "string" ? schema.$schema : "";
    if (declared.includes("2020-12")) return from["2020"];
    if (declared.includes("2019-09")) return from["2019"];
    return from.draft7;
  }
}

function engines(useDefaults: boolean): Engines {
  const options = { strict: false, allErrors: true, useDefaults, validateFormats: true } as const;
  return {
    draft7: addFormats(new AjvDraft7.default(options)),
    "2019": addFormats(new Ajv2019.default(options) as unknown as AjvInstance),
    "2020": addFormats(new Ajv2020.default(options) as unknown as AjvInstance),
  };
}

function stripIds(schema: JSONSchema): JSONSchema {
  if (!("$id" in schema) && !("$schema" in schema)) return schema;
  const { $id: _id, $schema: _schema, ...rest } = schema;
  return rest;
}

/**
 * One issue per distinct problem. ajv reports every branch of an
 * `anyOf`/`oneOf` (the same "must be string" once per branch, plus the
 * union's own summary): when some branch's errors go deeper than the
 * union, the shallow "wrong type" and union lines are noise and are
 * dropped; identical lines are reported once.
 */
export function describeIssues(errors: ErrorObject[]): ValidationIssue[] {
  const seen = new Set<string>();
  return relevantErrors(errors)
    .map(describeIssue)
    .filter((issue) => !seen.has(issue.message) && seen.add(issue.message));
}

/**
 * For a value that matches no branch of a union, keep the errors of the
 * branch whose type matched (the deeper ones) and drop the "wrong type"
 * noise of the others; with nothing deeper, everything stays.
 */
export function relevantErrors(errors: ErrorObject[]): ErrorObject[] {
  const unions = errors
    .filter((error) => error.keyword === "anyOf" || error.keyword === "oneOf")
    .map((error) => error.instancePath);
  const kept = errors.filter((error) => {
    const deeper = errors.some((other) => other.instancePath.startsWith(`${error.instancePath}/`));
    if (error.keyword === "anyOf" || error.keyword === "oneOf") return !deeper;
    const noise = unions.includes(error.instancePath) && (error.keyword === "type" || error.keyword === "enum");
    return !(noise && deeper);
  });
  return kept.length > 0 ? kept : errors;
}

function describeIssue(error: ErrorObject): ValidationIssue {
  const path = error.instancePath || "/";
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required") {
    const field = joinPointer(error.instancePath, String(params.missingProperty));
    return { path: field, message: `missing required field ${displayPath(field)}` };
  }
  if (error.keyword === "additionalProperties") {
    const field = joinPointer(error.instancePath, String(params.additionalProperty));
    return { path: field, message: `unknown field ${displayPath(field)}` };
  }
  if (error.keyword === "enum" && Array.isArray(params.allowedValues)) {
    const allowed = params.allowedValues.slice(0, 10).map((value) => JSON.stringify(value));
    const more = params.allowedValues.length > allowed.length ? ", …" : "";
    return { path, message: `${displayPath(path)} must be one of ${allowed.join(", ")}${more}` };
  }
  return { path, message: `${displayPath(path)} ${error.message ?? "is invalid"}` };
}

const joinPointer = (base: string, name: string) => `${base}/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;

/** `/a/0/b` → `"a[0].b"`; the root is `value`. */
export function displayPath(pointer: string): string {
  if (pointer === "/" || pointer === "") return "value";
  const parts = pointer
    .slice(1)
    .split("/")
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"));
  let out = "";
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  return `"${out}"`;
}

/** One readable sentence for an error response, naming the first few distinct problems. */
export function summariseIssues(subject: string, issues: ValidationIssue[]): string {
  const unique = [...new Set(issues.map((issue) => issue.message))];
  const shown = unique.slice(0, 3);
  const more = unique.length > shown.length ? ` (and ${unique.length - shown.length} more)` : "";
  return `${subject}: ${shown.join("; ")}${more}`;
}
