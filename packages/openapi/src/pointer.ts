import { isRecord, ownString } from "./records.js";

/** JSON pointer (RFC 6901) helpers for local `$ref`s (`#/components/schemas/Pet`). */

function escapeToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

function unescapeToken(token: string): string {
  return token.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** `#/a/b~1c` for the tokens `["a", "b/c"]`. */
export function pointerOf(tokens: readonly string[]): string {
  return `#${tokens.map((token) => `/${escapeToken(token)}`).join("")}`;
}

/** Whether `ref` points inside the same document (starts with `#`). */
export function isLocalRef(ref: string): boolean {
  return ref.startsWith("#");
}

/** Tokens of the `$ref`s met lately: a large document repeats the same few thousand references many times. */
const tokenCache = new Map<string, readonly string[]>();
const TOKEN_CACHE_SIZE = 20_000;

/**
 * The tokens of a local `$ref` (`#/a/b` → `["a", "b"]`), percent-decoding the
 * URI fragment first. Throws for a fragment that is not a JSON pointer.
 */
export function refTokens(ref: string): readonly string[] {
  let tokens = tokenCache.get(ref);
  if (tokens === undefined) {
    tokens = parseRef(ref);
    if (tokenCache.size >= TOKEN_CACHE_SIZE) tokenCache.clear();
    tokenCache.set(ref, tokens);
  }
  return tokens;
}

function parseRef(ref: string): readonly string[] {
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    throw new Error(`$ref "${ref}" is not a valid URI fragment`);
  }
  if (fragment === "") return [];
  if (!fragment.startsWith("/"))
    throw new Error(`$ref "${ref}" is not a JSON pointer (plain-name fragments are not supported)`);
  return fragment.slice(1).split("/").map(unescapeToken);
}

/** The value at `tokens` inside `root`, or `undefined` when a token does not exist. */
export function valueAt(root: unknown, tokens: readonly string[]): unknown {
  let node: unknown = root;
  for (const token of tokens) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (isRecord(node) && Object.hasOwn(node, token)) {
      node = node[token];
    } else {
      return undefined;
    }
  }
  return node;
}

/**
 * Follow the chain of local `$ref`s starting at `node` to the value it ends
 * on. `circular` is set (to the reference met twice) when the chain loops.
 */
export function followRefs(root: unknown, node: unknown): { value: unknown; circular?: string } {
  let value = node;
  const seen = new Set<string>();
  for (let ref = ownString(value, "$ref"); ref !== undefined; ref = ownString(value, "$ref")) {
    if (seen.has(ref)) return { value, circular: ref };
    seen.add(ref);
    value = valueAt(root, refTokens(ref));
  }
  return { value };
}
