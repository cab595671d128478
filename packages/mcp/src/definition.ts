import { createHash } from "node:crypto";
import type { JSONSchema, ServiceDefinition, ToolDefinition } from "@cyrnel/sdk";
import { annotationsOf } from "./annotations.js";
import { contentOutputSchema } from "./content.js";
import { DOMAIN_FORMAT, type HttpFlavour, type ServiceDomain, type ToolDomain } from "./domain.js";
import { toolIds } from "./ids.js";
import { isRecord } from "./records.js";
import { secretsSchemaOf } from "./secrets.js";
import { describeTarget, type McpTarget } from "./target.js";

/**
 * Stage 3: what the server said at install (its `initialize` answer and every
 * page of `tools/list`) → the service definition. Pure: the listing itself
 * is `listing.ts`.
 */
export interface Listing {
  server: { name: string; title?: string; version: string };
  instructions?: string;
  /** The tools as `tools/list` gave them, every page, in order. */
  tools: Record<string, unknown>[];
  http?: HttpFlavour;
}

/** What a session compares the server's current list against (the list as received, in order). */
export function toolsDigest(tools: readonly unknown[]): string {
  return createHash("sha256").update(JSON.stringify(tools)).digest("hex");
}

/** A tool only callable as a task (`execution.taskSupport: "required"`): `tools/call` alone cannot run it. */
function taskOnly(tool: Record<string, unknown>): boolean {
  return isRecord(tool.execution) && tool.execution.taskSupport === "required";
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

export function serviceDefinition(target: McpTarget, listing: Listing): ServiceDefinition {
  const callable = listing.tools.filter((tool) => !taskOnly(tool));
  const refused = listing.tools.filter(taskOnly).map((tool) => String(tool.name));
  const ids = toolIds(callable.map((tool) => String(tool.name)));
  const tools = callable.map((tool, index): ToolDefinition => {
    const name = String(tool.name);
    const structured = isRecord(tool.outputSchema);
    const domain: ToolDomain = { format: DOMAIN_FORMAT, name, structured };
    const hints = isRecord(tool.annotations) ? tool.annotations : {};
    return {
      id: ids[index]!,
      name: text(tool.title) ?? text(hints.title) ?? name,
      description: text(tool.description) ?? "",
      inputSchema: isRecord(tool.inputSchema) ? (tool.inputSchema as JSONSchema) : { type: "object" },
      outputSchema: structured ? (tool.outputSchema as JSONSchema) : contentOutputSchema(),
      adapterDomain: { ...domain },
      annotations: annotationsOf(hints),
      endpoint: `tools/call ${name}`,
    };
  });
  const { server } = listing;
  const domain: ServiceDomain = {
    format: DOMAIN_FORMAT,
    target,
    server: {
      name: server.name,
      ...(server.title === undefined ? {} : { title: server.title }),
      version: server.version,
    },
    ...(listing.instructions === undefined ? {} : { instructions: listing.instructions }),
    ...(listing.http === undefined ? {} : { http: listing.http }),
    toolsDigest: toolsDigest(listing.tools),
  };
  const title = server.title ?? server.name;
  const description = [
    `${title} ${server.version} (MCP server "${server.name}" over ${target.transport}: ${describeTarget(target)}).`,
    ...(listing.instructions === undefined ? [] : [listing.instructions]),
    ...(refused.length === 0
      ? []
      : [`Not callable through cyrnel (they run only as MCP tasks): ${refused.join(", ")}.`]),
  ].join("\n\n");
  return {
    name: title,
    description,
    configSchema: { type: "object", additionalProperties: false, properties: {} },
    secretsSchema: secretsSchemaOf(target),
    tools,
    adapterDomain: { ...domain },
  };
}
