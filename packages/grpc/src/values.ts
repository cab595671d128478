import { jsonName } from "./names.js";
import { type Enum, type Field, protobuf, type Root, type Type } from "./protobuf.js";
import { isRecord } from "./records.js";
import { isWrapper } from "./well-known.js";

/**
 * Stage 5: values between the proto3 JSON mapping and protobuf messages
 * (https://protobuf.dev/programming-guides/json/), in both directions.
 *
 * From JSON (parameters → request bytes): field names in JSON form or as
 * written in the proto; 64-bit integers as decimal strings or numbers;
 * bytes as standard or URL-safe base64; enums by name or number; `null`
 * means "not set". Anything else is refused with the path of the value.
 *
 * To JSON (response bytes → result): JSON field names; every field without
 * presence is emitted, default values included (proto3 scalars, repeated as
 * `[]`, maps as `{}`), so results always have the same keys; a field with
 * presence (message, `optional`, oneof member, proto2 field) only when set.
 * 64-bit integers as strings, bytes as base64, enums by name (a number the
 * definition does not know, from a newer server, stays a number), non-finite
 * floats as "NaN", "Infinity", "-Infinity", well-known types in their JSON
 * forms. An `Any` whose type is not in the definition is
 * `{"@type": …, "value": "<base64>"}`.
 */

export class ValueError extends Error {
  constructor(path: string, problem: string) {
    super(`${path === "" ? "parameters" : path}: ${problem}`);
    this.name = "ValueError";
  }
}

type Plain = Record<string, unknown>;
const INT = /^-?[0-9]+$/;

/** The field of `type` that the JSON key names (JSON name first, then the proto name). */
function fieldByKey(type: Type, key: string): Field | undefined {
  for (const field of type.fieldsArray) if (jsonName(field) === key) return field;
  return Object.hasOwn(type.fields, key) ? type.fields[key] : undefined;
}

export class JsonCodec {
  constructor(private readonly root: Root) {}

  /** JSON → encoded message bytes. */
  encode(type: Type, json: unknown): Uint8Array {
    const plain = this.fromJson(type, json, "");
    const message = type.fromObject(plain);
    return type.encode(message).finish();
  }

  /** Encoded message bytes → JSON. */
  decode(type: Type, bytes: Uint8Array): unknown {
    return this.toJson(type, type.decode(bytes) as unknown as Plain);
  }

  // ── JSON → protobufjs plain object ─────────────────────────────────────

  fromJson(type: Type, json: unknown, path: string): Plain {
    const special = this.specialFromJson(type, json, path);
    if (special !== undefined) return special;
    if (!isRecord(json)) throw new ValueError(path, `expected an object for ${type.fullName.slice(1)}`);
    const out: Plain = {};
    const oneofs = new Map<string, string>();
    for (const [key, value] of Object.entries(json)) {
      const field = fieldByKey(type, key);
      const at = path === "" ? key : `${path}.${key}`;
      if (!field) throw new ValueError(at, `unknown field of ${type.fullName.slice(1)}`);
      // `null` means "not set", except where null is the value: a Value, or a NullValue (a oneof member, in Firestore).
      const nullable = field.resolvedType?.fullName;
      if (value === null && nullable !== ".google.protobuf.Value" && nullable !== ".google.protobuf.NullValue")
        continue;
      if (field.partOf && field.partOf.fieldsArray.length > 1) {
        const other = oneofs.get(field.partOf.name);
        if (other !== undefined) throw new ValueError(at, `"${other}" of the same oneof is set already`);
        oneofs.set(field.partOf.name, key);
      }
      out[field.name] = this.fieldFromJson(field, value, at);
    }
    return out;
  }

  private fieldFromJson(field: Field, value: unknown, path: string): unknown {
    if (field instanceof protobuf.MapField) {
      if (!isRecord(value)) throw new ValueError(path, "expected an object (a map)");
      const out: Plain = {};
      for (const [key, item] of Object.entries(value)) {
        out[mapKey(field.keyType, key, `${path}["${key}"]`)] = this.singleFromJson(field, item, `${path}["${key}"]`);
      }
      return out;
    }
    if (field.repeated) {
      if (!Array.isArray(value)) throw new ValueError(path, "expected an array");
      return value.map((item, index) => this.singleFromJson(field, item, `${path}[${index}]`));
    }
    return this.singleFromJson(field, value, path);
  }

  private singleFromJson(field: Field, value: unknown, path: string): unknown {
    const resolved = field.resolvedType;
    if (resolved instanceof protobuf.Enum) return enumFromJson(resolved, value, path);
    if (resolved instanceof protobuf.Type) return this.fromJson(resolved, value, path);
    return scalarFromJson(field.type, value, path);
  }

  /** Well-known types with their own JSON form; `undefined` for every other type. */
  private specialFromJson(type: Type, json: unknown, path: string): Plain | undefined {
    switch (type.fullName) {
      case ".google.protobuf.Timestamp":
        return secondsAndNanos(type, timestampFromJson(json, path));
      case ".google.protobuf.Duration":
        return secondsAndNanos(type, durationFromJson(json, path));
      case ".google.protobuf.FieldMask":
        if (typeof json !== "string") throw new ValueError(path, "expected a string of comma-separated paths");
        return { [nameOf(type, 1)]: json === "" ? [] : json.split(",").map(snakeCase) };
      case ".google.protobuf.Struct":
        if (!isRecord(json)) throw new ValueError(path, "expected an object");
        return this.structFromJson(json, path);
      case ".google.protobuf.Value":
        return this.valueFromJson(json, path);
      case ".google.protobuf.ListValue":
        if (!Array.isArray(json)) throw new ValueError(path, "expected an array");
        return this.listFromJson(json, path);
      case ".google.protobuf.Any":
        return this.anyFromJson(type, json, path);
    }
    if (isWrapper(type.fullName)) return { [nameOf(type, 1)]: scalarFromJson(type.fieldsById[1]!.type, json, path) };
    return undefined;
  }

  private wellKnown(name: string): Type {
    return this.root.lookupType(`.google.protobuf.${name}`);
  }

  private structFromJson(json: Record<string, unknown>, path: string): Plain {
    const fields: Plain = {};
    for (const [key, value] of Object.entries(json)) fields[key] = this.valueFromJson(value, `${path}.${key}`);
    return { [nameOf(this.wellKnown("Struct"), 1)]: fields };
  }

  private listFromJson(json: unknown[], path: string): Plain {
    return {
      [nameOf(this.wellKnown("ListValue"), 1)]: json.map((item, i) => this.valueFromJson(item, `${path}[${i}]`)),
    };
  }

  /** A JSON value as a `google.protobuf.Value` (fields 1–6: null, number, string, bool, struct, list). */
  private valueFromJson(json: unknown, path: string): Plain {
    const value = this.wellKnown("Value");
    if (json === null) return { [nameOf(value, 1)]: 0 };
    if (typeof json === "number") {
      if (!Number.isFinite(json)) throw new ValueError(path, "a Value cannot hold NaN or Infinity");
      return { [nameOf(value, 2)]: json };
    }
    if (typeof json === "string") return { [nameOf(value, 3)]: json };
    if (typeof json === "boolean") return { [nameOf(value, 4)]: json };
    if (Array.isArray(json)) return { [nameOf(value, 6)]: this.listFromJson(json, path) };
    if (isRecord(json)) return { [nameOf(value, 5)]: this.structFromJson(json, path) };
    throw new ValueError(path, "expected a JSON value");
  }

  private structToJson(message: Plain): Plain {
    const out: Plain = {};
    const fields = (message[nameOf(this.wellKnown("Struct"), 1)] as Plain | undefined) ?? {};
    for (const [key, value] of Object.entries(fields)) out[key] = this.valueToJson(value as Plain);
    return out;
  }

  private listToJson(message: Plain): unknown[] {
    const values = (message[nameOf(this.wellKnown("ListValue"), 1)] as Plain[] | undefined) ?? [];
    return values.map((value) => this.valueToJson(value));
  }

  private valueToJson(message: Plain): unknown {
    const value = this.wellKnown("Value");
    // Only the member of `kind` that is set is an own property (the others are defaults on the prototype).
    const get = (id: number) => (Object.hasOwn(message, nameOf(value, id)) ? message[nameOf(value, id)] : undefined);
    if (get(5) != null) return this.structToJson(get(5) as Plain);
    if (get(6) != null) return this.listToJson(get(6) as Plain);
    if (get(3) != null) return get(3);
    if (get(2) != null) return scalarToJson("double", get(2));
    if (get(4) != null) return get(4);
    return null;
  }

  private anyFromJson(any: Type, json: unknown, path: string): Plain {
    if (!isRecord(json) || typeof json["@type"] !== "string") {
      throw new ValueError(path, 'expected an object with "@type" (an Any)');
    }
    const url = json["@type"];
    const inner = this.lookup(url);
    if (!inner) throw new ValueError(`${path}["@type"]`, `type "${url}" is not in the service's definition`);
    const { "@type": _, ...rest } = json;
    const special = this.specialJsonForm(inner);
    const plain = this.fromJson(inner, special ? rest.value : rest, path);
    return { [nameOf(any, 1)]: url, [nameOf(any, 2)]: inner.encode(inner.fromObject(plain)).finish() };
  }

  private lookup(url: string): Type | undefined {
    const name = url.slice(url.lastIndexOf("/") + 1);
    if (!/^[A-Za-z_][\w.]*$/.test(name)) return undefined;
    try {
      const found = this.root.lookup(`.${name}`);
      return found instanceof protobuf.Type ? found : undefined;
    } catch {
      return undefined;
    }
  }

  /** Whether an Any holding this type keeps its JSON under "value". */
  private specialJsonForm(type: Type): boolean {
    return isWrapper(type.fullName) || SPECIAL_FORMS.has(type.fullName);
  }

  // ── protobufjs message → JSON ─────────────────────────────────────────

  toJson(type: Type, message: Plain): unknown {
    switch (type.fullName) {
      case ".google.protobuf.Timestamp":
        return timestampToJson(message[nameOf(type, 1)], message[nameOf(type, 2)]);
      case ".google.protobuf.Duration":
        return durationToJson(message[nameOf(type, 1)], message[nameOf(type, 2)]);
      case ".google.protobuf.FieldMask":
        return ((message[nameOf(type, 1)] as string[] | undefined) ?? []).map(camelCase).join(",");
      case ".google.protobuf.Struct":
        return this.structToJson(message);
      case ".google.protobuf.Value":
        return this.valueToJson(message);
      case ".google.protobuf.ListValue":
        return this.listToJson(message);
      case ".google.protobuf.Any":
        return this.anyToJson(type, message);
    }
    if (isWrapper(type.fullName)) return scalarToJson(type.fieldsById[1]!.type, message[nameOf(type, 1)]);
    const out: Plain = {};
    for (const field of type.fieldsArray) {
      const set =
        Object.hasOwn(message, field.name) && message[field.name] !== null && message[field.name] !== undefined;
      if (hasPresence(field) && !set) continue;
      out[jsonName(field)] = this.fieldToJson(field, set ? message[field.name] : undefined);
    }
    return out;
  }

  private fieldToJson(field: Field, value: unknown): unknown {
    if (field instanceof protobuf.MapField) {
      const out: Plain = {};
      for (const [key, item] of Object.entries((value as Plain | undefined) ?? {})) {
        out[mapKeyToJson(field.keyType, key)] = this.singleToJson(field, item);
      }
      return out;
    }
    if (field.repeated) return ((value as unknown[] | undefined) ?? []).map((item) => this.singleToJson(field, item));
    return this.singleToJson(field, value === undefined ? defaultOf(field) : value);
  }

  private singleToJson(field: Field, value: unknown): unknown {
    const resolved = field.resolvedType;
    if (resolved instanceof protobuf.Enum) {
      if (resolved.fullName === ".google.protobuf.NullValue") return null;
      return resolved.valuesById[value as number] ?? value;
    }
    if (resolved instanceof protobuf.Type) return this.toJson(resolved, (value ?? {}) as Plain);
    return scalarToJson(field.type, value);
  }

  private anyToJson(any: Type, message: Plain): unknown {
    const url = String(message[nameOf(any, 1)] ?? "");
    const bytes = (message[nameOf(any, 2)] as Uint8Array | undefined) ?? new Uint8Array();
    const inner = this.lookup(url);
    if (!inner) return { "@type": url, value: Buffer.from(bytes).toString("base64") };
    const json = this.toJson(inner, inner.decode(bytes) as unknown as Plain);
    return this.specialJsonForm(inner) ? { "@type": url, value: json } : { "@type": url, ...(json as Plain) };
  }
}

const SPECIAL_FORMS = new Set([
  ".google.protobuf.Timestamp",
  ".google.protobuf.Duration",
  ".google.protobuf.FieldMask",
  ".google.protobuf.Struct",
  ".google.protobuf.Value",
  ".google.protobuf.ListValue",
  ".google.protobuf.Any",
]);

/**
 * Whether a field is only there when set. protobufjs says no for proto3
 * message fields (it reads `field_presence` only); the JSON mapping treats
 * every singular message field as having presence.
 */
function hasPresence(field: Field): boolean {
  if (field.repeated || field instanceof protobuf.MapField) return false;
  return field.hasPresence || field.resolvedType instanceof protobuf.Type;
}

/** The name of field `id` of a well-known type (snake_case from a .proto, camelCase from protobufjs's bundled JSON). */
function nameOf(type: Type, id: number): string {
  const field = type.fieldsById[id];
  if (!field) throw new Error(`${type.fullName.slice(1)} has no field ${id}`);
  return field.name;
}

function secondsAndNanos(type: Type, value: { seconds: string; nanos: number }): Plain {
  return { [nameOf(type, 1)]: value.seconds, [nameOf(type, 2)]: value.nanos };
}

// ── scalars ───────────────────────────────────────────────────────────────

const INT32 = new Set(["int32", "sint32", "sfixed32"]);
const UINT32 = new Set(["uint32", "fixed32"]);
const INT64 = new Set(["int64", "sint64", "sfixed64"]);
const UINT64 = new Set(["uint64", "fixed64"]);

function integerFromJson(value: unknown, path: string, min: bigint, max: bigint): bigint {
  let text: string;
  if (typeof value === "number" && Number.isInteger(value)) text = BigInt(value).toString();
  else if (typeof value === "string" && (INT.test(value) || /^-?[0-9]+(\.0+)?(e\+?[0-9]+)?$/i.test(value))) {
    text = value;
  } else throw new ValueError(path, "expected an integer (a decimal string or a number)");
  let big: bigint;
  try {
    big = INT.test(text) ? BigInt(text) : BigInt(Number(text));
  } catch {
    throw new ValueError(path, "expected an integer");
  }
  if (big < min || big > max) throw new ValueError(path, `${text} is out of range [${min}, ${max}]`);
  return big;
}

function scalarFromJson(type: string, value: unknown, path: string): unknown {
  if (INT32.has(type)) return Number(integerFromJson(value, path, -(2n ** 31n), 2n ** 31n - 1n));
  if (UINT32.has(type)) return Number(integerFromJson(value, path, 0n, 2n ** 32n - 1n));
  if (INT64.has(type)) return integerFromJson(value, path, -(2n ** 63n), 2n ** 63n - 1n).toString();
  if (UINT64.has(type)) {
    const big = integerFromJson(value, path, 0n, 2n ** 64n - 1n);
    // protobufjs reads a decimal string as signed: give it the same 64 bits as a signed value.
    return BigInt.asIntN(64, big).toString();
  }
  switch (type) {
    case "double":
    case "float":
      if (typeof value === "number") return value;
      if (value === "NaN") return Number.NaN;
      if (value === "Infinity") return Number.POSITIVE_INFINITY;
      if (value === "-Infinity") return Number.NEGATIVE_INFINITY;
      if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
      throw new ValueError(path, "expected a number");
    case "bool":
      if (typeof value === "boolean") return value;
      throw new ValueError(path, "expected a boolean");
    case "string":
      if (typeof value === "string") return value;
      throw new ValueError(path, "expected a string");
    case "bytes":
      if (typeof value === "string" && /^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) {
        return Buffer.from(value.replace(/-/g, "+").replace(/_/g, "/"), "base64");
      }
      throw new ValueError(path, "expected base64 text");
  }
  throw new ValueError(path, `unsupported scalar type ${type}`);
}

function scalarToJson(type: string, value: unknown): unknown {
  if (INT64.has(type) || UINT64.has(type)) {
    if (value === undefined || value === null) return "0";
    if (typeof value === "number")
      return UINT64.has(type) && value < 0 ? BigInt.asUintN(64, BigInt(value)).toString() : String(value);
    const long = value as { toString(): string; unsigned?: boolean; low: number; high: number };
    const big = (BigInt(long.high >>> 0) << 32n) | BigInt(long.low >>> 0);
    return (UINT64.has(type) ? BigInt.asUintN(64, big) : BigInt.asIntN(64, big)).toString();
  }
  if (type === "double" || type === "float") {
    const number = typeof value === "number" ? value : 0;
    if (Number.isNaN(number)) return "NaN";
    if (number === Number.POSITIVE_INFINITY) return "Infinity";
    if (number === Number.NEGATIVE_INFINITY) return "-Infinity";
    return number;
  }
  if (type === "bytes") return Buffer.from((value as Uint8Array | undefined) ?? []).toString("base64");
  if (INT32.has(type) || UINT32.has(type)) return typeof value === "number" ? value : 0;
  if (type === "bool") return value === true;
  if (type === "string") return typeof value === "string" ? value : "";
  return value;
}

function defaultOf(field: Field): unknown {
  if (field.resolvedType instanceof protobuf.Enum) {
    const first = Object.values(field.resolvedType.values)[0];
    return first ?? 0;
  }
  if (field.resolvedType instanceof protobuf.Type) return undefined;
  return undefined;
}

function enumFromJson(type: Enum, value: unknown, path: string): unknown {
  if (type.fullName === ".google.protobuf.NullValue") return 0;
  if (typeof value === "string" && Object.hasOwn(type.values, value)) return type.values[value];
  if (typeof value === "number" && Number.isInteger(value)) return value;
  throw new ValueError(
    path,
    `expected one of ${Object.keys(type.values)
      .map((name) => `"${name}"`)
      .join(", ")}`,
  );
}

function mapKey(keyType: string, key: string, path: string): string {
  if (keyType === "string") return key;
  if (keyType === "bool") {
    if (key === "true" || key === "false") return key;
    throw new ValueError(path, 'a bool map key must be "true" or "false"');
  }
  return String(scalarFromJson(keyType, key, path));
}

function mapKeyToJson(keyType: string, key: string): string {
  if ((INT64.has(keyType) || UINT64.has(keyType)) && key.length === 8) {
    const long = protobuf.util.longFromHash(key, UINT64.has(keyType));
    return String(scalarToJson(keyType, long));
  }
  return key;
}

// ── well-known types ─────────────────────────────────────────────────────

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const MIN_SECONDS = -62135596800n; // 0001-01-01T00:00:00Z
const MAX_SECONDS = 253402300799n; // 9999-12-31T23:59:59Z

function timestampFromJson(json: unknown, path: string): { seconds: string; nanos: number } {
  const match = typeof json === "string" ? TIMESTAMP.exec(json) : null;
  if (!match) throw new ValueError(path, 'expected an RFC 3339 timestamp, e.g. "2024-05-01T12:30:00Z"');
  const [, year, month, day, hour, minute, second, fraction, , sign, offH, offM] = match;
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), 0);
  if (date.getUTCDate() !== Number(day) || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) {
    throw new ValueError(path, `"${json}" is not a valid date and time`);
  }
  let seconds = BigInt(Math.floor(date.getTime() / 1000));
  if (sign) seconds -= BigInt((sign === "-" ? -1 : 1) * (Number(offH) * 3600 + Number(offM) * 60));
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) {
    throw new ValueError(path, "a timestamp must be between 0001-01-01 and 9999-12-31");
  }
  return { seconds: seconds.toString(), nanos: fraction ? Number(fraction.padEnd(9, "0")) : 0 };
}

function longOf(value: unknown): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === "number") return BigInt(value);
  if (typeof value === "string") return BigInt(value);
  const long = value as { low: number; high: number };
  return BigInt.asIntN(64, (BigInt(long.high >>> 0) << 32n) | BigInt(long.low >>> 0));
}

function fractionText(nanos: number): string {
  if (nanos === 0) return "";
  const digits = String(nanos).padStart(9, "0");
  const cut = digits.endsWith("000000") ? 3 : digits.endsWith("000") ? 6 : 9;
  return `.${digits.slice(0, cut)}`;
}

function timestampToJson(secondsValue: unknown, nanosValue: unknown): string {
  const seconds = longOf(secondsValue);
  const nanos = Number(nanosValue ?? 0);
  const date = new Date(Number(seconds) * 1000);
  const year = String(date.getUTCFullYear()).padStart(4, "0");
  const rest = date.toISOString().slice(date.toISOString().indexOf("-", 1) + 1, -5);
  return `${year}-${rest}${fractionText(nanos)}Z`;
}

function durationFromJson(json: unknown, path: string): { seconds: string; nanos: number } {
  const match = typeof json === "string" ? /^(-)?([0-9]+)(?:\.([0-9]{1,9}))?s$/.exec(json) : null;
  if (!match) throw new ValueError(path, 'expected a duration like "1.5s"');
  const sign = match[1] ? -1n : 1n;
  const seconds = BigInt(match[2]!);
  if (seconds > 315576000000n) throw new ValueError(path, "a duration must be within ±10,000 years");
  const nanos = match[3] ? Number(match[3].padEnd(9, "0")) : 0;
  return { seconds: (sign * seconds).toString(), nanos: sign < 0n ? -nanos : nanos };
}

function durationToJson(secondsValue: unknown, nanosValue: unknown): string {
  const seconds = longOf(secondsValue);
  const nanos = Number(nanosValue ?? 0);
  const negative = seconds < 0n || nanos < 0;
  const abs = seconds < 0n ? -seconds : seconds;
  return `${negative ? "-" : ""}${abs}${fractionText(Math.abs(nanos))}s`;
}

function camelCase(path: string): string {
  return path.replace(/_([a-z0-9])/g, (_, char: string) => char.toUpperCase());
}

function snakeCase(path: string): string {
  return path.replace(/[A-Z]/g, (char) => `_${char.toLowerCase()}`);
}
