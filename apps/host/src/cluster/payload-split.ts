/**
 * Cutting text so that each piece, written as a JSON string, fits in a
 * NOTIFY payload. The limit is in UTF-8 bytes of the payload, and JSON
 * escaping changes sizes (a newline takes 2 bytes, a control character 6,
 * `é` 2, `€` 3, an emoji 4), so pieces are measured by what they encode to,
 * not by length. Cuts fall between code points, never inside a surrogate
 * pair, so every piece is well-formed text on its own.
 */

/** UTF-8 bytes that `JSON.stringify` makes of the code unit(s) at `i`, and how many units that is. */
function encodedAt(text: string, i: number): { bytes: number; units: number } {
  const code = text.charCodeAt(i);
  if (code === 0x22 || code === 0x5c) return { bytes: 2, units: 1 };
  if (code < 0x20) {
    // \b \t \n \f \r have two-character escapes; the other controls become \u00XX.
    return { bytes: code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6, units: 1 };
  }
  if (code < 0x80) return { bytes: 1, units: 1 };
  if (code < 0x800) return { bytes: 2, units: 1 };
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = text.charCodeAt(i + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return { bytes: 4, units: 2 };
    return { bytes: 6, units: 1 };
  }
  if (code >= 0xdc00 && code <= 0xdfff) return { bytes: 6, units: 1 };
  return { bytes: 3, units: 1 };
}

/** The UTF-8 size of `JSON.stringify(text)` without the two quotes. */
export function jsonStringBytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    const at = encodedAt(text, i);
    bytes += at.bytes;
    i += at.units;
  }
  return bytes;
}

/**
 * Splits `text` into consecutive pieces whose JSON string encodings (quotes
 * excluded) are at most `budget` bytes each; their concatenation is `text`.
 * Empty text gives no pieces.
 */
export function splitForPayload(text: string, budget: number): string[] {
  if (budget < 6) throw new Error("a piece budget must hold at least one escaped character (6 bytes)");
  const pieces: string[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    const at = encodedAt(text, i);
    if (bytes + at.bytes > budget) {
      pieces.push(text.slice(start, i));
      start = i;
      bytes = 0;
    }
    bytes += at.bytes;
    i += at.units;
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}
