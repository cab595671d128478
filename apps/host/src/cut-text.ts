/**
 * Texts that travel somewhere bounded (a log line, an error message sent
 * back to code) are cut at a character limit, with a marker saying how much
 * was left out. A caller can put megabytes into a tool parameter, and an
 * adapter may echo it in its message: the cut keeps that from turning into
 * a megabyte log line or error.
 */
const numberFormat = new Intl.NumberFormat("en-US");

/**
 * `text` itself when it fits in `maxChars`, else its first `maxChars`
 * characters and a marker. `fullLength` is the length of the text `text`
 * was taken from, when the caller already dropped its end.
 */
export function cutText(text: string, maxChars: number, fullLength = text.length): string {
  if (text.length <= maxChars && fullLength <= text.length) return text;
  // Never split a surrogate pair: half of one is not valid UTF-16 text.
  const end = Math.min(text.length, /[\uD800-\uDBFF]/.test(text[maxChars - 1] ?? "") ? maxChars - 1 : maxChars);
  const more = Math.max(fullLength, text.length) - end;
  return `${text.slice(0, end)}… [cut: ${numberFormat.format(more)} more characters]`;
}
