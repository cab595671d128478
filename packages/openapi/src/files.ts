import type { JSONSchema } from "@cyrnel/sdk";
import { isRecord } from "./records.js";

/**
 * Binary payloads in JSON tool parameters. Wherever the adapter sends
 * bytes — a multipart file part, a raw body (`application/octet-stream`,
 * `image/png`, …), a multipart body whose schema is a single binary string —
 * the input accepts either
 *
 * - a string: its UTF-8 bytes (handy for text files), or
 * - `{ "base64": "…", "filename"?: "…", "contentType"?: "…" }`: the decoded
 *   bytes; `filename` names a file part (default: the property name, or
 *   `file`), `contentType` overrides the document's media type.
 */

export interface FileInput {
  base64: string;
  filename?: string;
  contentType?: string;
}

export interface FilePayload {
  bytes: Uint8Array;
  filename?: string;
  contentType?: string;
}

const FILE_OBJECT: JSONSchema = {
  type: "object",
  description: "Binary content: base64-encoded bytes, with an optional file name and content type.",
  properties: {
    base64: { type: "string", contentEncoding: "base64", description: "The bytes, base64-encoded." },
    filename: { type: "string", description: "File name sent with a multipart file part." },
    contentType: { type: "string", description: "Media type of the bytes (overrides the document's)." },
  },
  required: ["base64"],
  additionalProperties: false,
};

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** The input schema of a binary value: the document's string schema, or the base64 object. */
export function fileInputSchema(schema: JSONSchema): JSONSchema {
  const { description, ...text } = schema;
  return {
    ...(typeof description === "string" ? { description } : {}),
    anyOf: [{ ...text, type: "string", description: "Text, sent as its UTF-8 bytes." }, FILE_OBJECT],
  };
}

export function isFileInput(value: unknown): value is FileInput {
  return isRecord(value) && typeof value.base64 === "string";
}

/** The bytes of a binary input (see the module comment); other values as JSON text. */
export function filePayload(value: unknown): FilePayload {
  if (typeof value === "string") return { bytes: new TextEncoder().encode(value) };
  if (isFileInput(value)) {
    const compact = value.base64.replace(/\s+/g, "");
    if (!BASE64.test(compact)) throw new Error("A file's base64 value is not valid base64");
    return {
      bytes: new Uint8Array(Buffer.from(compact, "base64")),
      ...(typeof value.filename === "string" ? { filename: value.filename } : {}),
      ...(typeof value.contentType === "string" ? { contentType: value.contentType } : {}),
    };
  }
  return { bytes: new TextEncoder().encode(JSON.stringify(value ?? null)) };
}
