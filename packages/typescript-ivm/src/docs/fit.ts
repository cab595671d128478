/**
 * `text` cut to at most `maxChars` characters, ending with a line that says
 * it was cut. The last resort of every bounded answer: the renderers first
 * try to show less detail.
 */
export function cutToFit(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const marker = `\n\n[cut: the rest does not fit in ${maxChars} characters]`;
  let end = Math.max(0, maxChars - marker.length);
  // Never split a surrogate pair.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return (text.slice(0, end) + marker).slice(0, maxChars);
}
