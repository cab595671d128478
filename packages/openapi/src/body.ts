import type { BodyBinding } from "./domain.js";
import { bodyKind, essence } from "./media-types.js";
import type { Encoding } from "./operations.js";
import { isRecord } from "./records.js";
import { primitiveText, serializeQuery } from "./styles.js";

/**
 * The request body on the wire, by the media type chosen at install time:
 *
 * - JSON (`application/json`, `*+json`): `JSON.stringify(body)`.
 * - `application/x-www-form-urlencoded`: each property serialised like a
 *   query parameter with its `encoding` entry (default form, exploded;
 *   `contentType: application/json` sends JSON text), spaces as `+`.
 * - `multipart/form-data`: one part per property; arrays repeat the part;
 *   binary properties (`format: binary`, Swagger `type: file`) become file
 *   parts named after the property, with the text's UTF-8 bytes and the
 *   encoding's content type (default `application/octet-stream`); objects
 *   are sent as JSON text.
 * - `text/plain` and any other type: strings as they are, other values as
 *   JSON text.
 */

export interface EncodedBody {
  /** `undefined` for multipart: fetch adds the boundary itself. */
  contentType: string | undefined;
  body: string | FormData;
}

export function encodeBody(binding: BodyBinding, value: unknown): EncodedBody {
  switch (bodyKind(binding.mediaType)) {
    case "json":
      return { contentType: jsonContentType(binding.mediaType), body: JSON.stringify(value ?? null) };
    case "form":
      return {
        contentType: binding.mediaType,
        body: typeof value === "string" ? value : formBody(value, binding.encoding),
      };
    case "multipart":
      return { contentType: undefined, body: multipartBody(value, binding) };
    default:
      return {
        contentType: binding.mediaType,
        body: typeof value === "string" ? value : JSON.stringify(value ?? null),
      };
  }
}

function jsonContentType(type: string): string {
  const base = essence(type);
  return base === "*/*" || base === "application/*" ? "application/json" : type;
}

function isJsonEncoding(encoding: Encoding | undefined): boolean {
  return encoding?.contentType !== undefined && /json/i.test(encoding.contentType);
}

function formBody(value: unknown, encodings: Record<string, Encoding>): string {
  if (!isRecord(value)) return "";
  const pairs = Object.entries(value).flatMap(([name, item]) => {
    const encoding = Object.hasOwn(encodings, name) ? encodings[name] : undefined;
    if (isJsonEncoding(encoding) && item !== undefined) return serializeQuery(name, JSON.stringify(item), "form", true);
    const style = encoding?.style ?? "form";
    const explode = encoding?.explode ?? style === "form";
    return serializeQuery(name, item, style, explode, encoding?.allowReserved ?? false);
  });
  return pairs.join("&").replaceAll("%20", "+");
}

function multipartBody(value: unknown, binding: BodyBinding): FormData {
  const form = new FormData();
  if (!isRecord(value)) return form;
  for (const [name, item] of Object.entries(value)) {
    if (item === undefined || item === null) continue;
    const encoding = Object.hasOwn(binding.encoding, name) ? binding.encoding[name] : undefined;
    const items = Array.isArray(item) && !isJsonEncoding(encoding) ? item : [item];
    for (const part of items) {
      if (binding.files.includes(name)) {
        const type = encoding?.contentType?.split(",")[0]?.trim() || "application/octet-stream";
        form.append(name, new Blob([primitiveText(part)], { type }), name);
      } else {
        form.append(name, primitiveText(part));
      }
    }
  }
  return form;
}
