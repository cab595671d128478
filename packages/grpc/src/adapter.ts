import {
  AdapterError,
  type AdapterModule,
  type InvokeInput,
  type ServiceDefinition,
  type ServiceState,
  traceOutbound,
} from "@cyrnel/sdk";
import * as grpc from "@grpc/grpc-js";
import { serverStreamCall, unaryCall } from "./call.js";
import { readConfig, readSecrets, type ServiceConfig, secretHeaderMetadata } from "./config.js";
import { generateDefinition } from "./definition-source.js";
import { readServiceDomain, readToolDomain, type ToolDomain } from "./domain.js";
import { protobuf, type Root, type Type } from "./protobuf.js";
import { isRecord } from "./records.js";
import { statusError } from "./status.js";
import { JsonCodec, ValueError } from "./values.js";

/** What the adapter keeps per hydrated service (in memory only: secrets included, in `metadata`). */
interface ServiceRuntime {
  root: Root;
  codec: JsonCodec;
  tools: Map<string, { domain: ToolDomain; request: Type; response: Type }>;
  config: ServiceConfig;
  client: grpc.Client;
  /** Sent with every call: config metadata, then secret metadata, then the bearer token. */
  metadata: [string, string | Buffer][];
  /** The operator's secret headers (lower-case keys): over all of the above, and over a connected account's token. */
  secretHeaders: [string, string | Buffer][];
}

/**
 * The gRPC adapter: `generateDefinition` reads protos or a server's
 * reflection (`definition-source.ts`); `hydrateService` opens one channel
 * per service; `invoke` converts parameters to the request message
 * (`values.ts`), calls (`call.ts`) and converts the answer back, or turns a
 * non-OK status into an AdapterError (`status.ts`).
 */
export class GrpcAdapter implements AdapterModule {
  private readonly services = new Map<string, ServiceRuntime>();
  /** Aborted by teardown: calls in flight end at once instead of holding a stopping host until their deadline. */
  private lifetime = new AbortController();

  async setup(): Promise<void> {}

  async teardown(): Promise<void> {
    this.lifetime.abort("the grpc adapter was stopped");
    this.lifetime = new AbortController();
    for (const service of this.services.values()) service.client.close();
    this.services.clear();
  }

  generateDefinition(input: string): Promise<ServiceDefinition> {
    return generateDefinition(input);
  }

  async hydrateService(state: ServiceState): Promise<void> {
    const domain = readServiceDomain(state.adapterDomain);
    const root = protobuf.Root.fromJSON(domain.descriptor as protobuf.INamespace);
    root.resolveAll();
    const tools = new Map<string, { domain: ToolDomain; request: Type; response: Type }>();
    for (const [id, tool] of Object.entries(state.tools)) {
      const toolDomain = readToolDomain(id, tool.adapterDomain);
      tools.set(id, {
        domain: toolDomain,
        request: root.lookupType(toolDomain.request),
        response: root.lookupType(toolDomain.response),
      });
    }
    const config = readConfig(state.config);
    const secrets = readSecrets(state.secrets);
    const metadata: [string, string | Buffer][] = [];
    for (const [key, value] of [...Object.entries(config.metadata), ...Object.entries(secrets.metadata)]) {
      metadata.push([key, key.endsWith("-bin") ? Buffer.from(value, "base64") : value]);
    }
    if (secrets.bearer !== undefined) metadata.push(["authorization", `Bearer ${secrets.bearer}`]);
    const secretHeaders = Object.entries(secretHeaderMetadata(state.secretHeaders)).map(
      ([key, value]): [string, string | Buffer] => [key, key.endsWith("-bin") ? Buffer.from(value, "base64") : value],
    );
    // Building the Metadata once here makes a bad key fail the enable, not the first call.
    callMetadata(metadata, secretHeaders, undefined);
    const credentials = config.tls
      ? grpc.credentials.createSsl(config.tlsCa === undefined ? null : Buffer.from(config.tlsCa))
      : grpc.credentials.createInsecure();
    const client = new grpc.Client(config.target, credentials, {
      "grpc.max_receive_message_length": config.maxResponseBytes,
    });
    this.services.get(state.id)?.client.close();
    this.services.set(state.id, { root, codec: new JsonCodec(root), tools, config, client, metadata, secretHeaders });
  }

  async dehydrateService(id: string): Promise<void> {
    this.services.get(id)?.client.close();
    this.services.delete(id);
  }

  async invoke(input: InvokeInput): Promise<unknown> {
    const service = this.services.get(input.serviceId);
    if (!service) throw new Error(`Unknown service "${input.serviceId}": it is not enabled on the grpc adapter`);
    const tool = service.tools.get(input.toolId);
    if (!tool) throw new Error(`Unknown tool "${input.toolId}" on service "${input.serviceId}"`);
    const method = tool.domain.path.slice(1);
    const parameters = isRecord(input.parameters) ? input.parameters : {};
    let request: Uint8Array;
    try {
      request = service.codec.encode(tool.request, tool.domain.wrapped ? parameters.value : parameters);
    } catch (error) {
      if (error instanceof ValueError) throw new Error(`Invalid parameters for ${method}: ${error.message}`);
      throw error;
    }
    const metadata = callMetadata(service.metadata, service.secretHeaders, input.accessToken);
    // The call's span, a child of the tool call's, and its traceparent as metadata (nothing when untraced).
    const { target } = service.config;
    const span = traceOutbound(input, {
      protocol: "grpc",
      method: tool.domain.path,
      ...(target.includes("/") ? {} : { url: `grpc://${target}` }),
    });
    for (const [key, value] of Object.entries(span.headers)) metadata.set(key, value);
    // Code that asked for the whole response gets the response metadata as its headers (trailers after them).
    const headers: Record<string, string> = {};
    const respond = input.respond;
    const options = {
      ...(respond && { onMetadata: (metadata: grpc.Metadata) => addMetadata(headers, metadata) }),
      method,
      path: tool.domain.path,
      request,
      metadata,
      timeoutMs: service.config.timeoutMs,
      signals: [input.signal, this.lifetime.signal],
      maxMessages: service.config.maxStreamMessages,
      maxBytes: service.config.maxResponseBytes,
    };
    try {
      if (tool.domain.serverStreaming) {
        const messages = await serverStreamCall(service.client, options);
        span.end({ status: grpc.status.OK });
        const decoded = messages.map((bytes) => this.decode(service, tool.response, bytes, method));
        respond?.({ status: grpc.status.OK, headers });
        return decoded;
      }
      const reply = await unaryCall(service.client, options);
      span.end({ status: grpc.status.OK });
      const decoded = this.decode(service, tool.response, reply, method);
      respond?.({ status: grpc.status.OK, headers });
      return decoded;
    } catch (error) {
      span.end(isServiceError(error) ? { status: error.code, error } : { error });
      if (isServiceError(error)) throw statusError(method, error, service.root);
      throw error;
    }
  }

  private decode(service: ServiceRuntime, type: Type, bytes: Buffer, method: string): unknown {
    try {
      return service.codec.decode(type, bytes);
    } catch (error) {
      throw new AdapterError(
        `the answer of ${method} is not a valid ${type.fullName.slice(1)}: ${(error as Error).message}`,
      );
    }
  }
}

/** Response metadata as headers: keys lower case (gRPC's already are), values joined with `, `, binary ones base64. */
function addMetadata(headers: Record<string, string>, metadata: grpc.Metadata): void {
  for (const key of Object.keys(metadata.getMap())) {
    const values = metadata.get(key).map((value) => (typeof value === "string" ? value : value.toString("base64")));
    // Defined, not assigned: a key named `__proto__` stays a key.
    Object.defineProperty(headers, key, { value: values.join(", "), enumerable: true, writable: true });
  }
}

/**
 * One call's metadata: the service's (config, secret metadata, bearer), then a connected account's access token as
 * `authorization: Bearer` in place of the bearer secret, then the secret headers in place of any key they name — so
 * a secret `authorization` header wins over the account's token. `set` replaces every value of a key.
 */
function callMetadata(
  entries: [string, string | Buffer][],
  secretHeaders: [string, string | Buffer][],
  accessToken: string | undefined,
): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [key, value] of entries) metadata.add(key, value);
  if (accessToken !== undefined) {
    // grpc-js would put the value in its message: say what is wrong without the token.
    if (!/^[ -~]*$/.test(accessToken))
      throw new Error("the access token is not printable ASCII, as gRPC metadata requires");
    metadata.set("authorization", `Bearer ${accessToken}`);
  }
  for (const [key, value] of secretHeaders) metadata.set(key, value);
  return metadata;
}

function isServiceError(error: unknown): error is grpc.ServiceError {
  return (
    error instanceof Error && typeof (error as Partial<grpc.ServiceError>).code === "number" && "metadata" in error
  );
}
