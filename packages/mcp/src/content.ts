import type { JSONSchema } from "@cyrnel/sdk";
import { isRecord } from "./records.js";

/**
 * Stage 4: what a call returns, and the output schema that says so.
 *
 * A tool that declares an `outputSchema` returns its `structuredContent`,
 * typed by that schema (the MCP SDK client checks it against the schema).
 * Every other tool returns {@link ContentResult}: the text a person or a
 * program usually wants, already joined, beside the content blocks exactly
 * as the server sent them (images and audio as base64, resources as links
 * or embedded text/blob). Its schema names each kind of block under `$defs`,
 * so `GET /environment/types` declares them once per service and code can
 * narrow on `block.type`.
 */
export interface ContentResult {
  /** The `text` of every text block, joined with a newline; `""` when there is none. */
  text: string;
  /** Every content block, in order, as the server sent it. */
  content: Record<string, unknown>[];
  /** Present when the server sent structured content without declaring an output schema. */
  structuredContent?: Record<string, unknown>;
}

/** The text of a result's text blocks, joined with a newline. */
export function joinedText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .filter((block) => isRecord(block) && block.type === "text" && typeof block.text === "string")
    .map((block) => (block as { text: string }).text)
    .join("\n");
}

export function contentResult(result: Record<string, unknown>): ContentResult {
  const content = Array.isArray(result.content) ? result.content.filter(isRecord) : [];
  return {
    text: joinedText(content),
    content,
    ...(isRecord(result.structuredContent) ? { structuredContent: result.structuredContent } : {}),
  };
}

const annotations = {
  type: "object",
  description: "Hints about the block's audience, priority and age, from the server.",
  properties: {
    audience: { type: "array", items: { type: "string", enum: ["user", "assistant"] } },
    priority: { type: "number", minimum: 0, maximum: 1 },
    lastModified: { type: "string" },
  },
};

const block = (type: string, description: string, properties: Record<string, unknown>, required: string[]) => ({
  type: "object",
  description,
  properties: { type: { const: type }, ...properties, annotations: { $ref: "#/$defs/McpContentAnnotations" } },
  required: ["type", ...required],
});

const resourceBase = {
  uri: { type: "string", description: "The resource's URI." },
  mimeType: { type: "string" },
};

/** The `$defs` of every content-shaped output schema (one copy per tool; environments declare them once per service). */
const CONTENT_DEFS = {
  McpContent: {
    description: "One block of an MCP tool result; `type` tells which.",
    anyOf: [
      { $ref: "#/$defs/McpTextContent" },
      { $ref: "#/$defs/McpImageContent" },
      { $ref: "#/$defs/McpAudioContent" },
      { $ref: "#/$defs/McpResourceLink" },
      { $ref: "#/$defs/McpEmbeddedResource" },
    ],
  },
  McpTextContent: block("text", "Text.", { text: { type: "string" } }, ["text"]),
  McpImageContent: block(
    "image",
    "An image, base64-encoded.",
    { data: { type: "string", description: "Base64 bytes." }, mimeType: { type: "string" } },
    ["data", "mimeType"],
  ),
  McpAudioContent: block(
    "audio",
    "Audio, base64-encoded.",
    { data: { type: "string", description: "Base64 bytes." }, mimeType: { type: "string" } },
    ["data", "mimeType"],
  ),
  McpResourceLink: block(
    "resource_link",
    "A link to a resource the server can serve (not fetched by cyrnel).",
    {
      ...resourceBase,
      name: { type: "string" },
      title: { type: "string" },
      description: { type: "string" },
      size: { type: "number" },
    },
    ["uri", "name"],
  ),
  McpEmbeddedResource: block(
    "resource",
    "A resource embedded in the result: `text` for text, `blob` (base64) for bytes.",
    {
      resource: {
        type: "object",
        properties: {
          ...resourceBase,
          text: { type: "string" },
          blob: { type: "string", description: "Base64 bytes." },
        },
        required: ["uri"],
      },
    },
    ["resource"],
  ),
  McpContentAnnotations: annotations,
};

/** The output schema of a tool without its own: {@link ContentResult}. */
export function contentOutputSchema(): JSONSchema {
  return {
    type: "object",
    description:
      "The tool's result: `text` is its text joined, `content` every block as the server sent it (text, images, audio, resources).",
    properties: {
      text: { type: "string", description: "The text of every text block, joined with a newline; empty when none." },
      content: {
        type: "array",
        description: "Every content block, in order, as the server sent it.",
        items: { $ref: "#/$defs/McpContent" },
      },
      structuredContent: {
        type: "object",
        description: "Structured content, when the server sent some without declaring an output schema.",
      },
    },
    required: ["text", "content"],
    $defs: structuredClone(CONTENT_DEFS),
  };
}
