import AjvDraft7, { type ValidateFunction } from "ajv";
import Ajv2019 from "ajv/dist/2019.js";
import Ajv2020 from "ajv/dist/2020.js";
import addFormatsPlugin from "ajv-formats";
import { isSchemaObject, type Schema } from "./schema.js";

/**
 * Validation of usage-snippet values against the tool's own input schema,
 * with an ajv configured like the host's (strict off, formats checked, the
 * draft chosen by `$schema`) but without defaults: a snippet must pass the
 * gate exactly as written. A schema ajv cannot compile is not held against
 * the snippet (nothing could pass it).
 */

// ajv and ajv-formats are CommonJS with `exports.default`; under NodeNext the default import is the module object.
type AjvInstance = InstanceType<typeof AjvDraft7.default>;
const addFormats = addFormatsPlugin as unknown as (ajv: AjvInstance) => AjvInstance;

let engines: Record<"draft7" | "2019" | "2020", AjvInstance> | undefined;

function engineFor(schema: Schema): AjvInstance {
  const options = {
    strict: false,
    allErrors: false,
    useDefaults: false,
    validateFormats: true,
    logger: false,
  } as const;
  engines ??= {
    draft7: addFormats(new AjvDraft7.default(options)),
    "2019": addFormats(new Ajv2019.default(options) as unknown as AjvInstance),
    "2020": addFormats(new Ajv2020.default(options) as unknown as AjvInstance),
  };
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
