import { SCHEMA_NAME_KEYWORD } from "@cyrnel/sdk";
import { forEachSubschema, isSchemaObject, refTokens, type Schema } from "./schema.js";

/** One schema whose types are wanted (a tool's input or output), with what a `$ref: "#"` inside it means. */
export interface SchemaRoot {
  schema: Schema;
  /** How declarations refer to this root as a whole when it has no name of its own (e.g. `Input`). */
  alias: string;
}

/** A type declared once under its name. */
export interface NamedType {
  name: string;
  /** The schema that declares it; its `$ref`s are relative to root number `root`. */
  schema: Schema;
  root: number;
  /** Named types its body uses directly, in order of first use. */
  references: string[];
}

/** Global names the generated types use (or a reader expects); named types never shadow them. */
const GLOBAL_TYPES = [
  "Array",
  "Record",
  "Promise",
  "Object",
  "String",
  "Number",
  "Boolean",
  "Symbol",
  "Function",
  "Date",
  "Error",
  "Map",
  "Set",
  "Partial",
  "Readonly",
  "Pick",
  "Omit",
];

/**
 * Annotations at the top of a definition that say nothing about its type.
 * Two uses of one definition may differ in them (OpenAPI lets a reference
 * describe its use), and are still one type.
 */
const TOP_ANNOTATIONS = new Set([
  "description",
  "title",
  "$comment",
  "examples",
  "example",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$schema",
  "$id",
  "$defs",
  "definitions",
  SCHEMA_NAME_KEYWORD,
]);

interface Node {
  root: number;
  schema: Schema;
  /** The name it asks for; `undefined` for a root without a name of its own. */
  hint: string | undefined;
  edges: number[];
}

/** What a node's body refers to, relative to the node, so nodes with the same body share one walk. */
type EdgeTemplate = { ref: string } | { path: string[]; hint: string };

/**
 * The named types of a set of schemas (the tools of one service, or one
 * tool), each declared once.
 *
 * A named type is what a local `$ref` reaches (named after the last token of
 * the pointer: `#/$defs/Address` → `Address`) or a subschema carrying
 * {@link SCHEMA_NAME_KEYWORD}. Every root has its own `$defs`, so the same
 * definition arrives many times; uses are one type when they have the same
 * name and the same body, and the definitions they refer to are one type in
 * turn. That is decided by partition refinement over the reference graph
 * (start from name + body, split by the classes of the targets until
 * nothing splits), so cycles are handled and a body that looks the same but
 * refers to different definitions stays apart. Different types that want the
 * same name get `Address`, `Address2`, … in order of first use: roots in the
 * order given, then breadth-first. Same roots in, same names out.
 */
export class NamedTypes {
  readonly declarations: NamedType[] = [];
  private readonly nodes: Node[] = [];
  /** Per node: its pointer tokens from its root, and its label (name + body) before refinement. */
  private readonly paths: string[][] = [];
  private readonly labels: number[] = [];
  /** Per declaration: the node it was declared from. */
  private readonly representatives: number[] = [];
  private readonly nodeIds = new Map<string, number>();
  private readonly refIds = new Map<string, number | null>();
  private readonly annotated = new Map<object, number>();
  private readonly names: (string | undefined)[] = [];
  private readonly byName = new Map<string, NamedType>();

  constructor(
    private readonly roots: readonly SchemaRoot[],
    reserved: Iterable<string> = [],
  ) {
    roots.forEach((root, index) => {
      this.addNode(index, [], root.schema, nameAnnotation(root.schema));
    });
    this.discover();
    const classes = this.refine();
    this.name(classes, new Set([...GLOBAL_TYPES, ...reserved]));
  }

  rootSchema(index: number): Schema {
    return this.roots[index]!.schema;
  }

  /** The name of root `index` when it is a named type, else `undefined` (its type is its body). */
  rootName(index: number): string | undefined {
    return this.names[this.nodeIds.get(nodeKey(index, []))!];
  }

  /** What `$ref` means inside root `root`: a type name, the root's alias, or `undefined` (remote or dangling). */
  refType(root: number, ref: string): string | undefined {
    const id = this.refIds.get(`${root}\u0000${ref}`);
    if (id === undefined || id === null) return undefined;
    return this.names[id] ?? this.roots[this.nodes[id]!.root]!.alias;
  }

  /** The name of a subschema that names itself ({@link SCHEMA_NAME_KEYWORD}), by identity. */
  annotatedName(schema: Schema): string | undefined {
    if (!isSchemaObject(schema)) return undefined;
    const id = this.annotated.get(schema);
    return id === undefined ? undefined : this.names[id];
  }

  get(name: string): NamedType | undefined {
    return this.byName.get(name);
  }

  /** Named types used directly by root `index`, in order of first use. */
  rootReferences(index: number): string[] {
    const id = this.nodeIds.get(nodeKey(index, []))!;
    if (this.names[id] !== undefined) return [this.names[id]];
    return this.namesOf(this.nodes[id]!.edges);
  }

  /**
   * Named types within `depth` steps of `start` (names), breadth-first,
   * `start` included; `depth` 0 gives `start` alone.
   */
  within(start: readonly string[], depth: number): string[] {
    const seen = new Set<string>();
    let frontier = start.filter((name) => this.byName.has(name));
    for (let step = 0; frontier.length > 0; step++) {
      const next: string[] = [];
      for (const name of frontier) {
        if (seen.has(name)) continue;
        seen.add(name);
        if (step < depth) next.push(...this.byName.get(name)!.references);
      }
      frontier = next;
    }
    return [...seen];
  }

  private namesOf(ids: readonly number[]): string[] {
    const out = new Set<string>();
    for (const id of ids) {
      const name = this.names[id];
      if (name !== undefined) out.add(name);
    }
    return [...out];
  }

  private addNode(root: number, path: string[], schema: Schema, hint: string | undefined): number {
    const key = nodeKey(root, path);
    const known = this.nodeIds.get(key);
    if (known !== undefined) return known;
    const id = this.nodes.length;
    this.nodes.push({ root, schema, hint, edges: [] });
    this.nodeIds.set(key, id);
    if (hint !== undefined && isSchemaObject(schema)) this.annotated.set(schema, id);
    this.paths.push(path);
    return id;
  }

  /**
   * Walks every node once (breadth-first, in id order), finding the nodes it
   * refers to, and gives it its label: nodes with the same name hint and an
   * equal body share one (a deep comparison against the few bodies already
   * seen under that name, cheaper than serialising every copy).
   */
  private discover(): void {
    const templates: EdgeTemplate[][] = [];
    const bodies = new Map<string, { schema: Schema; label: number }[]>();
    for (let id = 0; id < this.nodes.length; id++) {
      const node = this.nodes[id]!;
      let label: number;
      if (node.hint === undefined) label = templates.length;
      else {
        const seen = bodies.get(node.hint) ?? [];
        bodies.set(node.hint, seen);
        const match = seen.find((other) => sameBody(other.schema, node.schema));
        label = match?.label ?? templates.length;
        if (match === undefined) seen.push({ schema: node.schema, label });
      }
      if (label === templates.length) templates.push(edgeTemplate(node.schema));
      this.labels.push(label);
      const path = this.paths[id]!;
      node.edges = templates[label]!.flatMap((edge) => {
        if ("ref" in edge) {
          const target = this.refNode(node.root, edge.ref);
          return target === null ? [] : [target];
        }
        const at = [...path, ...edge.path];
        return [this.addNode(node.root, at, valueAt(this.roots[node.root]!.schema, at) as Schema, edge.hint)];
      });
    }
  }

  private refNode(root: number, ref: string): number | null {
    const key = `${root}\u0000${ref}`;
    const known = this.refIds.get(key);
    if (known !== undefined) return known;
    const tokens = refTokens(ref);
    const target = tokens === undefined ? undefined : valueAt(this.roots[root]!.schema, tokens);
    let id: number | null = null;
    if (tokens !== undefined && (typeof target === "boolean" || isSchemaObject(target))) {
      const hint = nameAnnotation(target) ?? (tokens.length === 0 ? undefined : tokens[tokens.length - 1]);
      id = this.addNode(root, tokens, target, hint);
    }
    this.refIds.set(key, id);
    return id;
  }

  /** Partition refinement: classes by label, split by the classes of the targets until stable. */
  private refine(): number[] {
    let classes = this.labels;
    let count = new Set(classes).size;
    for (;;) {
      const next = intern(
        this.nodes.map((node, id) => `${classes[id]}:${node.edges.map((edge) => classes[edge]).join(",")}`),
      );
      const nextCount = new Set(next).size;
      if (nextCount === count) return classes;
      classes = next;
      count = nextCount;
    }
  }

  private name(classes: number[], taken: Set<string>): void {
    const classNames = new Map<number, string>();
    this.nodes.forEach((node, id) => {
      if (node.hint === undefined) return;
      const cls = classes[id]!;
      let name = classNames.get(cls);
      if (name === undefined) {
        name = freshName(node.hint, taken);
        classNames.set(cls, name);
        this.declarations.push({ name, schema: node.schema, root: node.root, references: [] });
        this.byName.set(name, this.declarations[this.declarations.length - 1]!);
        this.representatives.push(id);
      }
      this.names[id] = name;
    });
    this.declarations.forEach((declaration, index) => {
      declaration.references = this.namesOf(this.nodes[this.representatives[index]!]!.edges);
    });
  }
}

function nodeKey(root: number, path: readonly string[]): string {
  return `${root}\u0000${JSON.stringify(path)}`;
}

/** The name a schema gives itself ({@link SCHEMA_NAME_KEYWORD}), if any. */
function nameAnnotation(schema: unknown): string | undefined {
  if (!isSchemaObject(schema)) return undefined;
  const name = schema[SCHEMA_NAME_KEYWORD];
  return typeof name === "string" && name.trim() !== "" ? name : undefined;
}

/** Whether two definitions have the same body: equal JSON, ignoring the annotations at their top. */
function sameBody(a: Schema, b: Schema): boolean {
  if (!isSchemaObject(a) || !isSchemaObject(b)) return a === b;
  const keys = (schema: Record<string, unknown>) => Object.keys(schema).filter((key) => !TOP_ANNOTATIONS.has(key));
  const aKeys = keys(a);
  const bKeys = keys(b);
  return aKeys.length === bKeys.length && aKeys.every((key, i) => key === bKeys[i] && sameJson(a[key], b[key]));
}

/** Deep equality of JSON values, key order included (it decides the order of the generated properties). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameJson(item, other[i]));
  }
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  for (let i = 0; i < aKeys.length; i++) {
    const key = aKeys[i]!;
    if (key !== bKeys[i]) return false;
    if (!sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/** The `$ref`s and self-named subschemas a body uses, in walk order (not descending into the latter). */
function edgeTemplate(schema: Schema): EdgeTemplate[] {
  const edges: EdgeTemplate[] = [];
  const walk = (node: Schema, path: string[], top: boolean) => {
    if (!isSchemaObject(node)) return;
    const hint = top ? undefined : nameAnnotation(node);
    if (hint !== undefined) {
      edges.push({ path, hint });
      return;
    }
    if (typeof node.$ref === "string") edges.push({ ref: node.$ref });
    forEachSubschema(node, (child, childPath) => walk(child, [...path, ...childPath], false));
  };
  walk(schema, [], true);
  return edges;
}

function valueAt(root: unknown, tokens: readonly string[]): unknown {
  let node = root;
  for (const token of tokens) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/** Small integers for strings: equal strings, equal numbers. */
function intern(labels: readonly string[]): number[] {
  const ids = new Map<string, number>();
  return labels.map((label) => {
    let id = ids.get(label);
    if (id === undefined) {
      id = ids.size;
      ids.set(label, id);
    }
    return id;
  });
}

/** `hint` as a type name (an identifier, first letter upper-cased) that is not taken yet: `Name`, `Name2`, … */
export function freshName(hint: string, taken: Set<string>): string {
  const cleaned = hint.replace(/[^A-Za-z0-9_$]+/g, "_").replace(/^(?=[0-9])/, "_");
  const base = cleaned === "" ? "Type" : cleaned[0]!.toUpperCase() + cleaned.slice(1);
  let name = base;
  // `Address2`, but `Item_2_2` for `Item_2`: a digit right after a digit would read as one number.
  const join = /[0-9]$/.test(base) ? "_" : "";
  for (let n = 2; taken.has(name); n++) name = `${base}${join}${n}`;
  taken.add(name);
  return name;
}
