/**
 * Measuring untrusted JSON without recursion. V8's JSON.parse accepts any
 * nesting (a 1 MiB body of `[` takes seconds), but JSON.stringify,
 * structuredClone and every recursive walk over the result throw "Maximum
 * call stack size exceeded" a few thousand levels down: deep input must be
 * refused before it is parsed or walked, by code that cannot overflow itself.
 */

/**
 * Deepest nesting accepted in JSON the host parses from outside (request bodies, downloaded registry documents):
 * far beyond any real document, far below where JSON.stringify and structuredClone overflow the stack.
 */
export const MAX_JSON_DEPTH = 512;

/** True when `text` opens more than `limit` nested arrays/objects, found by a linear scan (strings skipped). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      i = closingQuote(text, i);
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}

/**
 * The index of the quote that closes the string opened at `open` (or the end of the text). Found with `indexOf`
 * rather than character by character: a service definition sent inline is one string of megabytes.
 */
function closingQuote(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

export interface JsonMeasure {
  /** Levels of arrays/objects (a scalar is 0). */
  depth: number;
  /** Approximate length of the value serialised as JSON. */
  bytes: number;
}

/**
 * Depth and approximate serialised size of a parsed value, iteratively.
 * Stops early (returning what it saw so far) once `maxDepth` or `maxBytes`
 * is exceeded, so measuring a huge value costs no more than the limits.
 */
export function measureJson(
  value: unknown,
  maxDepth = Number.POSITIVE_INFINITY,
  maxBytes = Number.POSITIVE_INFINITY,
): JsonMeasure {
  let depth = 0;
  let bytes = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, level] = stack.pop()!;
    if (item !== null && typeof item === "object") {
      depth = Math.max(depth, level + 1);
      if (depth > maxDepth) break;
      bytes += 2;
      if (Array.isArray(item)) {
        bytes += item.length;
        for (const child of item) stack.push([child, level + 1]);
      } else {
        for (const [key, child] of Object.entries(item)) {
          bytes += key.length + 4;
          stack.push([child, level + 1]);
        }
      }
    } else {
      bytes += typeof item === "string" ? item.length + 2 : String(item).length;
    }
    if (bytes > maxBytes) break;
  }
  return { depth, bytes };
}
