import { createRequire } from "node:module";
import type AjvDraft7 from "ajv";
import type { ValidateFunction } from "ajv";
import { isSchemaObject, type Schema } from "./schema.js";

/**
 * Validation of usage-snippet values against the tool's own input schema,
 * with an ajv configured like the host's (strict off, formats checked, the
 * draft chosen by `$schema`) but without defaults: a snippet must pass the
 * gate exactly as written. A schema ajv cannot compile is not held against
 * the snippet (nothing could pass it).
 */

// ajv and ajv-formats are CommonJS with `exports.default`.
type AjvInstance = InstanceType<typeof AjvDraft7.default>;
type AjvClass = new (options: object) => AjvInstance;
type Engines = Record<"draft7" | "2019" | "2020", AjvInstance>;

let engines: Engines | undefined;

/**
 * ajv is loaded on first use (synchronously: it is CommonJS), so a host
 * that never renders docs does not pay for it (~0.3 s) when the module loads.
 */
function createEngines(): Engines {
  const require = createRequire(import.meta.url);
  const load = (id: string) => (require(id) as { default: AjvClass }).default;
  const addFormats = load("ajv-formats") as unknown as (ajv: AjvInstance) => AjvInstance;
  const options = { strict: false, allErrors: false, useDefaults: false, validateFormats: true, logger: false };
  return {
    draft7: addFormats(new (load("ajv"))(options)),
    "2019": addFormats(new (load("ajv/dist/2019"))(options)),
    "2020": addFormats(new (load("ajv/dist/2020"))(options)),
  };
}

function engineFor(schema: Schema): AjvInstance {
  engines ??= createEngines();
  const declared = isSchemaObject(schema) && typeof schema.$schema === "string" ? schema.$schema : "";
  if (declared.includes("2020-12")) return engines["2020"];
  if (declared.includes("2019-09")) return engines["2019"];
  return engines.draft7;
}

/** A checker for values of `root` and of its sub-schemas (each compiled once, with the root's definitions). */
export function snippetChecker(root: Schema): {
  valid(value: unknown): boolean;
  validAt(node: Schema, value: unknown): boolean;
} {
  const compiled = new Map<Schema, ValidateFunction | null>();
  const engine = engineFor(root);
  const definitions = isSchemaObject(root)
    ? {
        ...(root.$defs === undefined ? {} : { $defs: root.$defs }),
        ...(root.definitions === undefined ? {} : { definitions: root.definitions }),
      }
    : {};
  const compile = (node: Schema): ValidateFunction | null => {
    if (compiled.has(node)) return compiled.get(node)!;
    let validate: ValidateFunction | null = null;
    try {
      const { $id: _id, $schema: _schema, ...rest } = isSchemaObject(node) ? node : {};
      validate = engine.compile(node === root ? rest : { ...rest, ...definitions });
    } catch {
      validate = null;
    }
    compiled.set(node, validate);
    return validate;
  };
  const check = (node: Schema, value: unknown) => {
    if (!isSchemaObject(node)) return node !== false;
    const validate = compile(node);
    return validate === null || validate(structuredClone(value)) === true;
  };
  return { valid: (value) => check(root, value), validAt: check };
}
