/** The two kinds of answer the MCP tools give: text (Markdown, declarations) and structured content. */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

/**
 * Structured content, with the same JSON as text for clients that only show text. Compact: indentation
 * would cost the model tokens, and would make a process's output, bounded by its compact JSON, grow again.
 */
export const structured = (value: Record<string, unknown>, isError = false): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value) }],
  structuredContent: value,
  ...(isError && { isError: true }),
});
