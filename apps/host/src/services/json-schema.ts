/**
 * JSON Schema validation for module-provided schemas (tool inputs, service
 * and module config/secrets). The draft is chosen by `$schema` (draft-07
 * when absent), compiled functions are cached by schema text, and
 * validation never mutates the caller's data.
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
  /** A copy of the data with schema defaults applied. */
  value: unknown;
  errors: ValidationIssue[];
}

export interface ValidationIssue {
  /** JSON pointer of the offending value, e.g. `/limit`. */
  path: string;
  message: string;
}

export class SchemaValidator {
  private readonly engines: Record<"draft7" | "2019" | "2020", AjvInstance>;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor() {
    const options = { strict: false, allErrors: true, useDefaults: true, validateFormats: true } as const;
    this.engines = {
      draft7: addFormats(new AjvDraft7.default(options)),
      "2019": addFormats(new Ajv2019.default(options) as unknown as AjvInstance),
      "2020": addFormats(new Ajv2020.default(options) as unknown as AjvInstance),
    };
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

  validate(schema: JSONSchema, data: unknown): ValidationResult {
    const validate = this.compile(schema);
    const value = structuredClone(data);
    const valid = validate(value) === true;
    return { valid, value, errors: valid ? [] : (validate.errors ?? []).map(describeIssue) };
  }

  /** Throws if the schema cannot be compiled (e.g. an unresolvable `$ref`). */
  compile(schema: JSONSchema): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.cache.get(key);
    if (!validate) {
      // `$id`s would register globally in the shared ajv instance and clash between tools; they are not needed here.
      validate = this.engineFor(schema).compile(stripIds(schema));
      this.cache.set(key, validate);
    }
    return validate;
  }

  private engineFor(schema: JSONSchema): AjvInstance {
    const declared = typeof schema.$schema === "string" ? schema.$schema : "";
    if (declared.includes("2020-12")) return this.engines["2020"];
    if (declared.includes("2019-09")) return this.engines["2019"];
    return this.engines.draft7;
  }
}

function stripIds(schema: JSONSchema): JSONSchema {
  if (!("$id" in schema) && !("$schema" in schema)) return schema;
  const { $id: _id, $schema: _schema, ...rest } = schema;
  return rest;
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

/** One readable sentence for an error response, naming the first few problems. */
export function summariseIssues(subject: string, issues: ValidationIssue[]): string {
  const shown = issues.slice(0, 3).map((issue) => issue.message);
  const more = issues.length > shown.length ? ` (and ${issues.length - shown.length} more)` : "";
  return `${subject}: ${shown.join("; ")}${more}`;
}
