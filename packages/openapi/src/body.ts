import type { BodyBinding } from "./domain.js";
import { filePayload } from "./files.js";
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
 *   deepObject indexes arrays, `contentType: application/json` sends JSON
 *   text; an object without a style is JSON text too), spaces as `+`. A string is sent verbatim (that is also the input
 *   when the document's schema is not an object: there are no field names
 *   to encode).
 * - `multipart/form-data`: one part per property; arrays repeat the part;
 *   binary properties (`format: binary`, Swagger `type: file`) become file
 *   parts named after the property, with the input's bytes (text or
 *   base64, see `files.ts`) and the encoding's content type (default
 *   `application/octet-stream`); objects are sent as JSON text. When the
 *   document's schema is not an object (Jira's attachments: one binary
 *   string) the whole input is one file part named `file`.
 * - `text/plain`: strings as they are, other values as JSON text.
 * - any other type (`application/octet-stream`, `image/png`, XML, …): the
 *   input's bytes (text or base64), other values as JSON text.
 */

export type BodyBytes = string | FormData | Uint8Array;

export interface EncodedBody {
  /** `undefined` for multipart: fetch adds the boundary itself. */
  contentType: string | undefined;
  body: BodyBytes;
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
    case "text":
      return {
        contentType: binding.mediaType,
        body: typeof value === "string" ? value : JSON.stringify(value ?? null),
      };
    default: {
      if (typeof value === "string") return { contentType: binding.mediaType, body: value };
      const payload = filePayload(value);
      return { contentType: payload.contentType ?? binding.mediaType, body: payload.bytes };
    }
  }
}

/** The pairs of an urlencoded body, encoded for a query string (spaces as `%20`): a GET's form body goes there. */
export function formPairs(value: unknown, binding: BodyBinding): string[] {
  if (typeof value === "string") return value === "" ? [] : value.split("&");
  return formFields(value, binding.encoding);
}

function jsonContentType(type: string): string {
  const base = essence(type);
  return base === "*/*" || base === "application/*" ? "application/json" : type;
}

function isJsonEncoding(encoding: Encoding | undefined): boolean {
  return encoding?.contentType !== undefined && /json/i.test(encoding.contentType);
}

/**
 * An urlencoded body, field by field. A field whose `encoding` gives a
 * style (or explode) is serialised by it; without one, an object value is
 * sent as JSON text — the Encoding Object's implicit content type for
 * objects, which only an explicit style overrides; exploding it would lose
 * the field's name (Twilio's `Data={…}`) — and everything else as
 * exploded form (arrays repeat the name).
 */
function formBody(value: unknown, encodings: Record<string, Encoding>): string {
  return formFields(value, encodings).join("&").replaceAll("%20", "+");
}

/** The `name=value` pairs of an urlencoded body, encoded as for a query string. */
function formFields(value: unknown, encodings: Record<string, Encoding>): string[] {
  if (!isRecord(value)) return [];
  return Object.entries(value).flatMap(([name, item]) => {
    const encoding = Object.hasOwn(encodings, name) ? encodings[name] : undefined;
    const styled = encoding?.style !== undefined || encoding?.explode !== undefined;
    if ((isJsonEncoding(encoding) || (!styled && isRecord(item))) && item !== undefined) {
      return serializeQuery(name, JSON.stringify(item), "form", true);
    }
    const style = encoding?.style ?? "form";
    const explode = encoding?.explode ?? style === "form";
    return serializeQuery(name, item, style, explode, encoding?.allowReserved ?? false);
  });
}

/** The multipart part name of a body whose schema is not an object. */
export const WHOLE_BODY_PART = "file";

function multipartBody(value: unknown, binding: BodyBinding): FormData {
  const form = new FormData();
  if (binding.whole === "file") {
    appendFile(form, WHOLE_BODY_PART, value, undefined);
    return form;
  }
  if (!isRecord(value)) return form;
  for (const [name, item] of Object.entries(value)) {
    if (item === undefined || item === null) continue;
    const encoding = Object.hasOwn(binding.encoding, name) ? binding.encoding[name] : undefined;
    const items = Array.isArray(item) && !isJsonEncoding(encoding) ? item : [item];
    for (const part of items) {
      if (binding.files.includes(name)) appendFile(form, name, part, encoding);
      else form.append(name, primitiveText(part));
    }
  }
  return form;
}

function appendFile(form: FormData, name: string, value: unknown, encoding: Encoding | undefined): void {
  const payload = filePayload(value);
  const type = payload.contentType ?? (encoding?.contentType?.split(",")[0]?.trim() || "application/octet-stream");
  form.append(name, new Blob([payload.bytes], { type }), payload.filename ?? name);
}
