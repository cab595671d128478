import type { JSONSchema } from "@cyrnel/sdk";

/**
 * The well-known types whose proto3 JSON form is not an object of their
 * fields, with the schema of that form. `values.ts` converts them; every
 * other message (`google.protobuf.Empty` included) maps field by field.
 */

const INT64 = "^-?[0-9]+$";
const UINT64 = "^[0-9]+$";

export const WELL_KNOWN_SCHEMAS: Record<string, JSONSchema> = {
  ".google.protobuf.Timestamp": {
    type: "string",
    format: "date-time",
    description: 'A point in time, RFC 3339 (e.g. "2024-05-01T12:30:00Z", up to 9 fractional digits).',
  },
  ".google.protobuf.Duration": {
    type: "string",
    pattern: "^-?[0-9]+(\\.[0-9]{1,9})?s$",
    description: 'A duration in seconds with an "s" suffix (e.g. "1.5s", "-0.001s").',
  },
  ".google.protobuf.FieldMask": {
    type: "string",
    description: 'Field paths in lowerCamelCase, comma-separated (e.g. "displayName,address.city").',
  },
  ".google.protobuf.Struct": { type: "object", additionalProperties: true, description: "Any JSON object." },
  ".google.protobuf.Value": { description: "Any JSON value." },
  ".google.protobuf.ListValue": { type: "array", items: {}, description: "Any JSON array." },
  ".google.protobuf.Any": {
    type: "object",
    properties: {
      "@type": {
        type: "string",
        description: 'The message type, e.g. "type.googleapis.com/google.rpc.ErrorInfo".',
      },
    },
    required: ["@type"],
    additionalProperties: true,
    description:
      'A message of any type: "@type" names it, its fields follow (a well-known type with a non-object form is under "value").',
  },
  ".google.protobuf.DoubleValue": { type: ["number", "null"] },
  ".google.protobuf.FloatValue": { type: ["number", "null"] },
  ".google.protobuf.Int64Value": { type: ["string", "null"], pattern: INT64 },
  ".google.protobuf.UInt64Value": { type: ["string", "null"], pattern: UINT64 },
  ".google.protobuf.Int32Value": { type: ["integer", "null"], minimum: -2147483648, maximum: 2147483647 },
  ".google.protobuf.UInt32Value": { type: ["integer", "null"], minimum: 0, maximum: 4294967295 },
  ".google.protobuf.BoolValue": { type: ["boolean", "null"] },
  ".google.protobuf.StringValue": { type: ["string", "null"] },
  ".google.protobuf.BytesValue": { type: ["string", "null"], contentEncoding: "base64" },
};

/** Whether the type's JSON form is something other than an object of its fields. */
export function isSpecial(fullName: string): boolean {
  return Object.hasOwn(WELL_KNOWN_SCHEMAS, fullName);
}

/** The wrapper types (`google.protobuf.*Value` but Value itself): their JSON form is the wrapped value or `null`. */
export function isWrapper(fullName: string): boolean {
  return /^\.google\.protobuf\.(Double|Float|Int64|UInt64|Int32|UInt32|Bool|String|Bytes)Value$/.test(fullName);
}

/** Scalar field types → schema (proto3 JSON mapping: 64-bit integers as decimal strings, bytes as base64). */
export const SCALAR_SCHEMAS: Record<string, JSONSchema> = {
  double: { type: "number" },
  float: { type: "number" },
  int32: { type: "integer", minimum: -2147483648, maximum: 2147483647 },
  sint32: { type: "integer", minimum: -2147483648, maximum: 2147483647 },
  sfixed32: { type: "integer", minimum: -2147483648, maximum: 2147483647 },
  uint32: { type: "integer", minimum: 0, maximum: 4294967295 },
  fixed32: { type: "integer", minimum: 0, maximum: 4294967295 },
  int64: { type: "string", pattern: INT64, description: "A 64-bit integer as a decimal string." },
  sint64: { type: "string", pattern: INT64, description: "A 64-bit integer as a decimal string." },
  sfixed64: { type: "string", pattern: INT64, description: "A 64-bit integer as a decimal string." },
  uint64: { type: "string", pattern: UINT64, description: "An unsigned 64-bit integer as a decimal string." },
  fixed64: { type: "string", pattern: UINT64, description: "An unsigned 64-bit integer as a decimal string." },
  bool: { type: "boolean" },
  string: { type: "string" },
  bytes: { type: "string", contentEncoding: "base64", description: "Bytes, base64-encoded." },
};
