import { isLocalRef, pointerOf, refTokens, valueAt } from "./pointer.js";
import { isRecord, type JsonRecord } from "./records.js";

/**
 * Stage 1, after parsing (see the README's table): how big the document really is. A short text can stand for an
 * enormous document: YAML aliases and `$ref`s share one node between many
 * places, and swagger-parser's validation (and parts of the later stages)
 * walk the document with every alias and `$ref` expanded — 25 anchors that
 * each alias the previous one twice make 2^25 schemas out of 1.7 KB. Deep
 * nesting is the other cost: the recursive code down the line runs out of
 * stack, and some of it is quadratic in the depth.
 *
 * So before anything else walks the document, one pass measures it as it
 * will be walked: every alias and every local `$ref` expanded the way
 * swagger-parser's dereference (with circular references ignored, which is
 * what its validation walks) expands them. That dereference leaves a `$ref`
 * in place whenever its target reaches a cycle anywhere below it, so only
 * `$ref`s with acyclic targets are counted expanded; a `$ref` that reaches a
 * cycle counts once. Without that rule, APIs made of mutually referring
 * schemas (Stripe) would measure in the billions although their validation
 * takes a second. The size of each `$ref` target is computed once and
 * reused, so documents that share schemas through `$ref`s cost one visit
 * per node; aliased YAML nodes are walked at every use, but the walk stops
 * at the limit, so its cost is bounded too. GitHub's REST API description,
 * one of the largest in use, expands to ~2 million values, 29 levels deep.
 */

/** Most nested objects and arrays on one path, `$ref`s followed. */
export const MAX_DEPTH = 256;
/** Most values (objects, arrays and scalars) once aliases and `$ref`s are expanded, unless configured otherwise. */
export const MAX_VALUES = 5_000_000;
/** How many tokens of a path error messages show. */
const SHOWN_TOKENS = 8;
/** Longest `$ref` chain followed (`$ref` to a `$ref` …) before it counts as a loop. */
const MAX_HOPS = 64;

interface Measure {
  /** Values in the expanded subtree, its root included. */
  size: number;
  /** Levels of the expanded subtree, its root included. */
  depth: number;
  /** Whether a cycle is reached below it (a `$ref` to such a subtree stays a reference). */
  circular: boolean;
}

/** What a `$ref` left in place counts as: one value. */
const KEPT_REF: Measure = { size: 1, depth: 1, circular: true };

const numberFormat = new Intl.NumberFormat("en-US");

/** Throws when `document`, expanded, is deeper than {@link MAX_DEPTH} or larger than `maxValues`. */
export function checkLimits(document: JsonRecord, maxValues: number = MAX_VALUES): void {
  /** Per `$ref` string: its target, and the target's measure once known. */
  const targets = new Map<string, unknown>();
  const measured = new Map<string, Measure>();
  /** `$ref`s being expanded on the current path: meeting one again is a cycle. */
  const expanding = new Set<string>();
  /** Keys from the root to the node being measured, for messages. */
  const path: string[] = [];
  let total = 0;

  const where = (): string => {
    const shown = pointerOf(path.slice(0, SHOWN_TOKENS));
    return path.length > SHOWN_TOKENS ? `${shown}/…` : shown;
  };
  const tooDeep = () =>
    new Error(
      `Invalid OpenAPI document: it is nested more than ${MAX_DEPTH} levels deep once $refs are followed (at ${where()})`,
    );
  const tooLarge = () =>
    new Error(
      `Invalid OpenAPI document: it expands to more than ${numberFormat.format(maxValues)} values once YAML aliases ` +
        `and $refs are resolved (at ${where()}); a document that repeats a shared part this often is refused`,
    );

  const resolve = (ref: string): unknown => {
    if (!targets.has(ref)) {
      let target: unknown;
      try {
        target = isLocalRef(ref) ? valueAt(document, refTokens(ref)) : undefined;
      } catch {
        target = undefined;
      }
      targets.set(ref, target);
    }
    return targets.get(ref);
  };

  /** The measure of a node at `level` (the root is level 1); `$ref` objects stand for their target. */
  const measure = (node: object, level: number): Measure => {
    if (level > MAX_DEPTH) throw tooDeep();
    const ref = isRecord(node) && Object.hasOwn(node, "$ref") ? node.$ref : undefined;
    if (typeof ref === "string") return measureRef(ref, level);
    // Counted as met, so an aliased YAML bomb stops at the limit instead of being walked to the end.
    if (++total > maxValues) throw tooLarge();
    let size = 1;
    let depth = 1;
    let circular = false;
    for (const key in node) {
      const child = (node as JsonRecord)[key];
      if (typeof child !== "object" || child === null) {
        size += 1;
        if (++total > maxValues) throw tooLarge();
        continue;
      }
      path.push(key);
      const inner = measure(child, level + 1);
      path.pop();
      size += inner.size;
      depth = Math.max(depth, inner.depth + 1);
      circular ||= inner.circular;
    }
    return { size, depth, circular };
  };

  const measureRef = (ref: string, level: number): Measure => {
    const known = measured.get(ref);
    if (known) {
      if (level - 1 + known.depth > MAX_DEPTH) throw tooDeep();
      total += known.size;
      if (total > maxValues) throw tooLarge();
      return known;
    }
    let target = resolve(ref);
    for (let hops = 0; isRecord(target) && typeof target.$ref === "string" && Object.hasOwn(target, "$ref"); hops++) {
      if (hops >= MAX_HOPS) return { size: 1, depth: 1, circular: false };
      target = resolve(target.$ref);
    }
    // A broken reference (reported by checkReferences) stays a reference.
    if (typeof target !== "object" || target === null) {
      total += 1;
      return { size: 1, depth: 1, circular: false };
    }
    // One back into its own ancestors is the cycle itself.
    if (expanding.has(ref)) {
      total += 1;
      return KEPT_REF;
    }
    const before = total;
    expanding.add(ref);
    const expanded = measure(target, level);
    expanding.delete(ref);
    // A target that reaches a cycle is not expanded: the reference stays, and only it counts.
    const result = expanded.circular ? KEPT_REF : expanded;
    if (expanded.circular) total = before + 1;
    measured.set(ref, result);
    return result;
  };

  measure(document, 1);
}
