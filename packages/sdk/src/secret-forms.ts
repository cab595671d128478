/**
 * The texts under which a secret can travel, for redaction. An adapter puts
 * a secret on the wire raw (a header), percent-encoded (a query parameter or
 * a cookie), form-encoded (`+` for spaces, as `URLSearchParams` writes it)
 * or base64-encoded with a user name (HTTP basic); an upstream that echoes
 * the request may send any of those back, re-encoded with lowercase hex, or
 * JSON-escaped inside a text. Masking only the raw value lets the others
 * through (`QUERYKEY%2B%2F%3Dabc123` for `QUERYKEY+/=abc123`).
 */

/** Shorter values are not masked: replacing them would garble ordinary text. */
export const MIN_SECRET_LENGTH = 4;

function lowerHex(text: string): string {
  return text.replace(/%[0-9A-F]{2}/g, (sequence) => sequence.toLowerCase());
}

function formsOfText(secret: string): string[] {
  const percent = encodeURIComponent(secret);
  const form = new URLSearchParams({ s: secret }).toString().slice(2);
  const plus = percent.replaceAll("%20", "+");
  return [
    secret,
    percent,
    lowerHex(percent),
    plus,
    lowerHex(plus),
    form,
    lowerHex(form),
    JSON.stringify(secret).slice(1, -1),
  ];
}

/** Base64 of the UTF-8 bytes (what HTTP basic sends), without Node's Buffer. */
function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Every form of every secret in `value` (a string, or any JSON value holding
 * strings), longest first so a longer form is masked before a shorter one
 * inside it. An object with string `username` and `password` also yields
 * the base64 of `username:password`, as HTTP basic sends it.
 */
export function secretForms(value: unknown): string[] {
  const texts = new Set<string>();
  const visit = (item: unknown) => {
    if (typeof item === "string") {
      if (item.length >= MIN_SECRET_LENGTH) texts.add(item);
    } else if (Array.isArray(item)) {
      item.forEach(visit);
    } else if (typeof item === "object" && item !== null) {
      const record = item as Record<string, unknown>;
      if (typeof record.username === "string" && typeof record.password === "string") {
        texts.add(base64(`${record.username}:${record.password}`));
      }
      Object.values(record).forEach(visit);
    }
  };
  visit(value);
  const forms = new Set<string>();
  for (const text of texts) for (const form of formsOfText(text)) forms.add(form);
  return [...forms].sort((a, b) => b.length - a.length);
}
