import type { JSONSchema, ServiceDefinition, ToolDefinition } from "@cyrnel/sdk";
import { annotationsOf } from "./annotations.js";
import { configSchema, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_MAX_STREAM_MESSAGES, SECRETS_SCHEMA } from "./config.js";
import { DOMAIN_FORMAT, type ServiceDomain, type ToolDomain } from "./domain.js";
import { toolIds } from "./ids.js";
import { type Method, protobuf, type Root, type Service, type Type } from "./protobuf.js";
import { SchemaEmitter } from "./schemas.js";
import { isSpecial } from "./well-known.js";

/**
 * Stage 4: a resolved root and the services to expose → ServiceDefinition.
 * Pure: the same root gives the same definition.
 *
 * Every unary and server-streaming method is a tool; client- and
 * bidirectional-streaming methods cannot be called with one set of
 * parameters and one answer, so they are only listed in the service's
 * description as not callable.
 */

export interface DefinitionInput {
  root: Root;
  /** Full names of the services to expose (no leading dot); all services of the root when absent. */
  services?: string[];
  /** Default `target` for the config, when the definition names one. */
  target?: string;
  tls?: boolean;
}

const fullName = (object: { fullName: string }) => object.fullName.slice(1);

/** Every service of the root, sorted by full name. */
export function servicesOf(root: Root): Service[] {
  const found: Service[] = [];
  const walk = (namespace: protobuf.NamespaceBase) => {
    for (const nested of namespace.nestedArray) {
      if (nested instanceof protobuf.Service) found.push(nested);
      else if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) walk(nested);
    }
  };
  walk(root);
  return found.sort((a, b) => (a.fullName < b.fullName ? -1 : 1));
}

const isCallable = (method: Method) => !method.requestStream;

export function buildDefinition(input: DefinitionInput): ServiceDefinition {
  const { root } = input;
  const wanted = input.services && new Set(input.services);
  const services = servicesOf(root).filter((service) => !wanted || wanted.has(fullName(service)));
  if (services.length === 0) throw new Error("the definition has no gRPC service");
  const emitter = new SchemaEmitter(root);
  const methods = services.flatMap((service) => service.methodsArray.map((method) => ({ service, method })));
  const callable = methods.filter(({ method }) => isCallable(method));
  const ids = toolIds(callable.map(({ service, method }) => ({ service: fullName(service), method: method.name })));
  const tools = callable.map(({ service, method }, index) => buildTool(ids[index]!, service, method, emitter));
  const domain: ServiceDomain = {
    format: DOMAIN_FORMAT,
    descriptor: root.toJSON({ keepComments: false }) as Record<string, unknown>,
  };
  return {
    name: services.length === 1 ? fullName(services[0]!) : commonName(services),
    description: describeServices(services),
    configSchema: configSchema(input.target, input.tls === true),
    secretsSchema: SECRETS_SCHEMA,
    tools,
    adapterDomain: domain as unknown as Record<string, unknown>,
  };
}

function buildTool(id: string, service: Service, method: Method, emitter: SchemaEmitter): ToolDefinition {
  const request = method.resolvedRequestType!;
  const response = method.resolvedResponseType!;
  const name = `${fullName(service)}/${method.name}`;
  const wrapped = isSpecial(request.fullName);
  const domain: ToolDomain = {
    path: `/${name}`,
    request: request.fullName,
    response: response.fullName,
    serverStreaming: method.responseStream === true,
    wrapped,
  };
  const streaming = method.responseStream
    ? ` Server streaming: the result is the array of messages the server sent (by default at most ${DEFAULT_MAX_STREAM_MESSAGES} messages and ${DEFAULT_MAX_RESPONSE_BYTES / 1024 / 1024} MiB; the service's maxStreamMessages and maxResponseBytes).`
    : "";
  const comment = method.comment?.trim();
  return {
    id,
    name,
    description: `${comment ? `${comment}\n\n` : ""}gRPC method \`${name}\`.${streaming}`,
    inputSchema: wrapped ? wrappedInput(emitter.rootSchema(request)) : emitter.rootSchema(request),
    outputSchema: method.responseStream
      ? emitter.streamSchema(response, DEFAULT_MAX_STREAM_MESSAGES)
      : emitter.rootSchema(response),
    adapterDomain: domain as unknown as Record<string, unknown>,
    annotations: annotationsOf(method),
    endpoint: name,
  };
}

/** A request whose JSON form is not an object (a bare Timestamp, …) is passed as `{value}`: parameters are objects. */
function wrappedInput(schema: JSONSchema): JSONSchema {
  const { $schema, ...value } = schema;
  return { $schema, type: "object", properties: { value }, required: ["value"], additionalProperties: false };
}

function commonName(services: Service[]): string {
  const packages = [...new Set(services.map((service) => fullName(service.parent!) || "(no package)"))];
  return packages.length === 1 ? packages[0]! : services.map(fullName).join(", ");
}

function describeServices(services: Service[]): string {
  const parts: string[] = [];
  for (const service of services) {
    const lines = [`gRPC service \`${fullName(service)}\`.`];
    if (service.comment?.trim()) lines.push(service.comment.trim());
    const streaming = service.methodsArray.filter((method) => !isCallable(method));
    if (streaming.length > 0) {
      lines.push(
        `Not callable as tools (client or bidirectional streaming): ${streaming
          .map(
            (method) =>
              `\`${fullName(service)}/${method.name}\` (${method.responseStream ? "bidirectional" : "client"} streaming)`,
          )
          .join(", ")}.`,
      );
    }
    parts.push(lines.join(" "));
  }
  return parts.join("\n\n");
}

/** For tests and the adapter: the request and response types of a tool. */
export function messageTypes(root: Root, domain: ToolDomain): { request: Type; response: Type } {
  return { request: root.lookupType(domain.request), response: root.lookupType(domain.response) };
}
