import type { ServiceDefinition } from "@cyrnel/sdk";
import { schemeDomains, secretsSchema } from "./auth.js";
import { authorizationFlow } from "./authorization.js";
import { configSchema, serverDomain } from "./config.js";
import { DOMAIN_FORMAT, type ServiceDomain } from "./domain.js";
import { baseToolId, uniqueToolIds } from "./ids.js";
import { describeApi } from "./operations.js";
import { type DefinitionLimits, parseDocument } from "./parse.js";
import { createSchemaEmitter } from "./schemas.js";
import { buildTool } from "./tools.js";

/**
 * Text → ServiceDefinition, stage by stage: parse and validate
 * (`parse.ts`), normalise operations (`operations.ts`), name tools
 * (`ids.ts`), build each tool's schemas and routing (`tools.ts`,
 * `schemas.ts`), the service's config (`config.ts`) and secrets
 * (`auth.ts`) schemas, and its authorization-code flow
 * (`authorization.ts`). Pure: no clock, no randomness, no I/O.
 */
export async function generateDefinition(text: string, limits: DefinitionLimits = {}): Promise<ServiceDefinition> {
  const parsed = await parseDocument(text, limits);
  try {
    const api = describeApi(parsed);
    const emitter = createSchemaEmitter(parsed.document, parsed.version);
    const ids = uniqueToolIds(api.operations.map((op) => baseToolId(op.operationId, op.method, op.path)));
    const schemes = schemeDomains(api.securitySchemes);
    const tools = api.operations.map((operation, index) => buildTool(operation, ids[index]!, emitter, schemes));
    const server = serverDomain(api.servers[0]);
    const adapterDomain: ServiceDomain = { format: DOMAIN_FORMAT, server, securitySchemes: schemes };
    const authorization = authorizationFlow(api.securitySchemes, server);
    return {
      name: api.title,
      description: api.description,
      configSchema: configSchema(server, api.servers[0]),
      secretsSchema: secretsSchema(api.securitySchemes, schemes),
      tools,
      adapterDomain: adapterDomain as unknown as Record<string, unknown>,
      ...(authorization === undefined ? {} : { authorization }),
    };
  } catch (error) {
    if (error instanceof RangeError) throw new Error("Invalid OpenAPI document: it is nested too deeply to process");
    throw error;
  }
}
