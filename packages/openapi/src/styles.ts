import { isRecord } from "./records.js";

/**
 * Parameter serialisation per OpenAPI `style` and `explode` (RFC 6570
 * semantics). Every function returns text that is already percent-encoded
 * for its place in the URL (headers are not encoded).
 *
 * | style          | explode | array `[a,b]`     | object `{x:1,y:2}`        |
 * |----------------|---------|-------------------|---------------------------|
 * | simple         | false   | `a,b`             | `x,1,y,2`                 |
 * | simple         | true    | `a,b`             | `x=1,y=2`                 |
 * | label          | false   | `.a,b`            | `.x,1,y,2`                |
 * | label          | true    | `.a.b`            | `.x=1.y=2`                |
 * | matrix         | false   | `;n=a,b`          | `;n=x,1,y,2`              |
 * | matrix         | true    | `;n=a;n=b`        | `;x=1;y=2`                |
 * | form           | false   | `n=a,b`           | `n=x,1,y,2`               |
 * | form           | true    | `n=a&n=b`         | `x=1&y=2`                 |
 * | spaceDelimited | false   | `n=a%20b`         | `n=x%201%20y%202`         |
 * | pipeDelimited  | false   | `n=a%7Cb`         | `n=x%7C1%7Cy%7C2`         |
 * | deepObject     | true    | `n[0]=a&n[1]=b`   | `n[x]=1&n[y]=2`           |
 *
 * Swagger 2's `tsv` collection format is `tabDelimited` (`%09`); the
 * delimiters are percent-encoded like any other character outside RFC
 * 3986's unreserved set. Nested values inside arrays or objects are sent as
 * JSON text, except in deepObject, which nests brackets and indexes arrays
 * at every level (`n[x][0][y]=1`, `expand[0]=a`): the convention of the
 * major form-encoded APIs (Stripe, qs, Rails, PHP) and what OpenAPI tools
 * parse back. An empty array is sent as `n=` (an empty value), never
 * dropped: a required empty list must still reach the server. `null` and
 * `undefined` parameters are not sent at all.
 */

/** Characters `allowReserved` leaves unencoded (RFC 3986 reserved set). */
const RESERVED = /%(3A|2F|3F|23|5B|5D|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/gi;

export function encode(text: string, allowReserved = false): string {
  const encoded = encodeURIComponent(text);
  return allowReserved ? encoded.replace(RESERVED, (sequence) => decodeURIComponent(sequence)) : encoded;
}

/** Parameter names keep `[` and `]` readable (`filter[status]`), as most servers expect. */
function encodeName(name: string): string {
  return encodeURIComponent(name).replace(/%5B/gi, "[").replace(/%5D/gi, "]");
}

export function primitiveText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return JSON.stringify(value);
}

type Shape =
  | { kind: "primitive"; text: string }
  | { kind: "array"; items: string[] }
  | { kind: "object"; entries: [string, string][] };

function shapeOf(value: unknown): Shape {
  if (Array.isArray(value)) return { kind: "array", items: value.map(primitiveText) };
  if (isRecord(value)) {
    return {
      kind: "object",
      entries: Object.entries(value)
        .filter(([, item]) => item !== undefined)
        .map(([key, item]) => [key, primitiveText(item)]),
    };
  }
  return { kind: "primitive", text: primitiveText(value) };
}

/** A path parameter's value for its `{placeholder}`. */
export function serializePath(name: string, value: unknown, style: string, explode: boolean): string {
  const shape = shapeOf(value);
  const enc = (text: string) => encode(text);
  switch (style) {
    case "label":
      return `.${simple(shape, explode, enc, explode ? "." : ",")}`;
    case "matrix": {
      const key = encodeName(name);
      if (shape.kind === "primitive") return shape.text === "" ? `;${key}` : `;${key}=${enc(shape.text)}`;
      if (shape.kind === "array") {
        return explode
          ? shape.items.map((item) => `;${key}=${enc(item)}`).join("")
          : `;${key}=${shape.items.map(enc).join(",")}`;
      }
      return explode
        ? shape.entries.map(([k, v]) => `;${enc(k)}=${enc(v)}`).join("")
        : `;${key}=${shape.entries.map(([k, v]) => `${enc(k)},${enc(v)}`).join(",")}`;
    }
    default:
      return simple(shape, explode, enc);
  }
}

/** Simple style; label style is the same with a `.` prefix and, exploded, `.` between values. */
function simple(shape: Shape, explode: boolean, enc: (text: string) => string, separator = ","): string {
  if (shape.kind === "primitive") return enc(shape.text);
  if (shape.kind === "array") return shape.items.map(enc).join(separator);
  return shape.entries.map(([k, v]) => (explode ? `${enc(k)}=${enc(v)}` : `${enc(k)},${enc(v)}`)).join(separator);
}

/** A header parameter's value (simple style, not percent-encoded). */
export function serializeHeader(value: unknown, explode: boolean): string {
  return simple(shapeOf(value), explode, (text) => text);
}

const DELIMITERS: Record<string, string> = { spaceDelimited: "%20", pipeDelimited: "%7C", tabDelimited: "%09" };

/** `name=value` pairs (encoded) for a query parameter. */
export function serializeQuery(
  name: string,
  value: unknown,
  style: string,
  explode: boolean,
  allowReserved = false,
): string[] {
  if (value === null || value === undefined) return [];
  const key = encodeName(name);
  const enc = (text: string) => encode(text, allowReserved);
  if (style === "deepObject" && (isRecord(value) || Array.isArray(value))) return deepObject(key, value, enc);
  const shape = shapeOf(value);
  if (shape.kind === "primitive") return [`${key}=${enc(shape.text)}`];
  const delimiter = Object.hasOwn(DELIMITERS, style) ? DELIMITERS[style]! : ",";
  if (shape.kind === "array") {
    if (shape.items.length === 0) return [`${key}=`];
    if (explode) return shape.items.map((item) => `${key}=${enc(item)}`);
    return [`${key}=${shape.items.map(enc).join(delimiter)}`];
  }
  if (explode) return shape.entries.map(([k, v]) => `${encodeName(k)}=${enc(v)}`);
  return [`${key}=${shape.entries.flatMap(([k, v]) => [enc(k), enc(v)]).join(delimiter)}`];
}

/** `prefix[key]…=value` pairs; arrays are indexed at every level, an empty array is `prefix=`. */
function deepObject(prefix: string, value: unknown, enc: (text: string) => string): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${prefix}=`];
    return value.flatMap((item, index) => (item === undefined ? [] : deepObject(`${prefix}[${index}]`, item, enc)));
  }
  if (isRecord(value)) {
    return Object.entries(value).flatMap(([key, item]) =>
      item === undefined ? [] : deepObject(`${prefix}[${encodeName(key)}]`, item, enc),
    );
  }
  return [`${prefix}=${enc(primitiveText(value))}`];
}

/** `name=value` pairs for cookie parameters (form style; values percent-encoded). */
export function serializeCookie(name: string, value: unknown, explode: boolean): [string, string][] {
  if (value === null || value === undefined) return [];
  const shape = shapeOf(value);
  const enc = (text: string) => encode(text);
  if (shape.kind === "primitive") return [[name, enc(shape.text)]];
  if (shape.kind === "array") {
    return explode ? shape.items.map((item) => [name, enc(item)]) : [[name, shape.items.map(enc).join(",")]];
  }
  if (explode) return shape.entries.map(([k, v]) => [k, enc(v)]);
  return [[name, shape.entries.flatMap(([k, v]) => [enc(k), enc(v)]).join(",")]];
}
