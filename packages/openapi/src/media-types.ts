/**
 * How a media type is encoded or decoded. Requests use the operation's
 * first media type (in document order) of a supported kind — JSON,
 * urlencoded form, multipart form or `text/plain` — and fall back to the
 * first one sent as a raw string. Responses prefer a JSON type.
 */

export type BodyKind = "json" | "form" | "multipart" | "text" | "raw";

export function essence(type: string): string {
  return (type.split(";")[0] ?? "").trim().toLowerCase();
}

export function isJsonType(type: string | null | undefined): boolean {
  if (!type) return false;
  const base = essence(type);
  return base === "application/json" || base.endsWith("+json") || base === "*/*" || base === "application/*";
}

export function bodyKind(type: string): BodyKind {
  const base = essence(type);
  if (isJsonType(base)) return "json";
  if (base === "application/x-www-form-urlencoded") return "form";
  if (base === "multipart/form-data") return "multipart";
  if (base === "text/plain") return "text";
  return "raw";
}

/** The first entry of a supported kind, else the first entry. */
export function pickRequestMediaType<T extends { type: string }>(content: readonly T[]): T | undefined {
  return content.find((entry) => bodyKind(entry.type) !== "raw") ?? content[0];
}

/** The first JSON entry, else the first entry. */
export function pickResponseMediaType<T extends { type: string }>(content: readonly T[]): T | undefined {
  return content.find((entry) => isJsonType(entry.type)) ?? content[0];
}

/** `Accept` for the response's media types, JSON ones first; `undefined` when the document lists none. */
export function acceptHeader(types: readonly string[]): string | undefined {
  const unique = [...new Set(types.map((type) => type.trim()).filter((type) => type !== ""))];
  const ordered = [...unique.filter((type) => isJsonType(type)), ...unique.filter((type) => !isJsonType(type))];
  return ordered.length > 0 ? ordered.join(", ") : undefined;
}
