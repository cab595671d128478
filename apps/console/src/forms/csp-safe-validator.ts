/**
 * The validator behind the generated config forms. rjsf's usual validator (ajv) compiles every schema into code with
 * `new Function`, which the console's CSP (no 'unsafe-eval') refuses; schemas arrive at run time from adapters and
 * modules, so they cannot be precompiled at build time either. @cfworker/json-schema interprets schemas instead of
 * compiling them. This adapts it to rjsf's ValidatorType. The host validates every patch again (the authority): this
 * only gives the operator feedback before sending.
 */
import { type OutputUnit, type Schema, Validator } from "@cfworker/json-schema";
import {
  type CustomValidator,
  createErrorHandler,
  type ErrorTransformer,
  getDefaultFormState,
  type RJSFSchema,
  type RJSFValidationError,
  toErrorSchema,
  type UiSchema,
  unwrapErrorHandler,
  type ValidationData,
  type ValidatorType,
  validationDataMerge,
} from "@rjsf/utils";

/** Keywords whose errors only say that a nested one failed: the nested error is reported, not these. */
const WRAPPERS = new Set([
  "properties",
  "patternProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "allOf",
  "$ref",
  "$recursiveRef",
  "$dynamicRef",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "dependencies",
  "unevaluatedProperties",
  "unevaluatedItems",
]);

const cache = new WeakMap<object, WeakMap<object, Validator>>();

function validatorFor(schema: RJSFSchema, rootSchema: RJSFSchema = schema): Validator {
  let byRoot = cache.get(rootSchema);
  if (!byRoot) {
    byRoot = new WeakMap();
    cache.set(rootSchema, byRoot);
  }
  let validator = byRoot.get(schema);
  if (!validator) {
    // A sub-schema's `#/definitions/…` and `#/$defs/…` refs point into the root schema: carry those along.
    const root = rootSchema as { definitions?: object; $defs?: object };
    const own = schema as { definitions?: object; $defs?: object };
    const withDefinitions = {
      ...schema,
      ...(root.definitions && { definitions: { ...root.definitions, ...own.definitions } }),
      ...(root.$defs && { $defs: { ...root.$defs, ...own.$defs } }),
    };
    validator = new Validator(withDefinitions as Schema, "7", false);
    byRoot.set(schema, validator);
  }
  return validator;
}

/** `#/a/0/b` → `.a.0.b`, the property path rjsf files errors under. */
const propertyOf = (instanceLocation: string) =>
  instanceLocation
    .replace(/^#/, "")
    .split("/")
    .filter(Boolean)
    .map((part) => `.${decodeURIComponent(part).replaceAll("~1", "/").replaceAll("~0", "~")}`)
    .join("");

function toRjsfError(unit: OutputUnit): RJSFValidationError {
  const at = propertyOf(unit.instanceLocation);
  if (unit.keyword === "required") {
    const missing = /property "([^"]+)"/.exec(unit.error)?.[1];
    if (missing !== undefined) {
      const property = `${at}.${missing}`;
      return {
        name: "required",
        property,
        message: "is required",
        stack: `${property} is required`,
        schemaPath: unit.keywordLocation,
      };
    }
  }
  const message = unit.error.replace(/^Instance /, "").replace(/\.$/, "");
  return {
    name: unit.keyword,
    property: at,
    message,
    stack: `${at || "value"} ${message}`.trim(),
    schemaPath: unit.keywordLocation,
  };
}

function rawErrors(schema: RJSFSchema, formData: unknown, rootSchema?: RJSFSchema): RJSFValidationError[] {
  const result = validatorFor(schema, rootSchema).validate(formData);
  if (result.valid) return [];
  return result.errors.filter((unit) => !WRAPPERS.has(unit.keyword)).map(toRjsfError);
}

export const cspSafeValidator: ValidatorType = {
  validateFormData(
    formData: unknown,
    schema: RJSFSchema,
    customValidate?: CustomValidator,
    transformErrors?: ErrorTransformer,
    uiSchema?: UiSchema,
  ): ValidationData<unknown> {
    let errors = rawErrors(schema, formData);
    if (transformErrors) errors = transformErrors(errors, uiSchema);
    const errorSchema = toErrorSchema(errors);
    if (!customValidate) return { errors, errorSchema };
    const filled = getDefaultFormState(cspSafeValidator, schema, formData, schema, true);
    const handler = customValidate(filled, createErrorHandler(filled), uiSchema);
    return validationDataMerge({ errors, errorSchema }, unwrapErrorHandler(handler));
  },
  isValid(schema: RJSFSchema, formData: unknown, rootSchema: RJSFSchema): boolean {
    try {
      return validatorFor(schema, rootSchema).validate(formData).valid;
    } catch {
      return false;
    }
  },
  rawValidation<Result>(schema: RJSFSchema, formData?: unknown) {
    try {
      return { errors: rawErrors(schema, formData) as Result[] };
    } catch (error) {
      return { validationError: error as Error };
    }
  },
};
