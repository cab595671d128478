import type { JSONSchema } from "@cyrnel/sdk";
import { isRecord } from "./records.js";

/**
 * A service's config and secrets (`PATCH /services/:id/config`, `/secrets`):
 * their schemas, and their reading at hydrate time. Problems found here
 * make the enable fail, not the first call.
 */

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_STREAM_MESSAGES = 1_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** Metadata keys as gRPC allows them (lower case; `-bin` keys carry base64 of bytes). */
const METADATA_KEY = "^[0-9a-z_.-]+$";
/** Keys gRPC itself sets: a call must not override them. */
const RESERVED_METADATA = /^(grpc-.*|:.*|te|content-type|user-agent|host|connection)$/;

export interface ServiceConfig {
  target: string;
  tls: boolean;
  tlsCa?: string;
  timeoutMs: number;
  maxStreamMessages: number;
  maxResponseBytes: number;
  metadata: Record<string, string>;
}

export interface Secrets {
  bearer?: string;
  metadata: Record<string, string>;
}

export function configSchema(target: string | undefined, tls: boolean): JSONSchema {
  return {
    type: "object",
    properties: {
      target: {
        type: "string",
        minLength: 1,
        description: 'The server, "host:port" (or any target gRPC accepts: "dns:///host:port", "unix:/path").',
        ...(target === undefined ? {} : { default: target }),
      },
      tls: {
        type: "boolean",
        default: tls,
        description: "Connect with TLS (server verified against the system's roots, or tlsCa). false: plaintext.",
      },
      tlsCa: { type: "string", description: "PEM of the CA certificate(s) that sign the server's certificate." },
      timeoutMs: {
        type: "integer",
        minimum: 1,
        default: DEFAULT_TIMEOUT_MS,
        description: "Deadline of one call, in ms (sent to the server as the gRPC deadline).",
      },
      maxStreamMessages: {
        type: "integer",
        minimum: 1,
        default: DEFAULT_MAX_STREAM_MESSAGES,
        description: "Most messages one server-streaming call may return; more fails the call.",
      },
      maxResponseBytes: {
        type: "integer",
        minimum: 1,
        default: DEFAULT_MAX_RESPONSE_BYTES,
        description: "Most bytes of one call's response (all messages of a stream together); more fails the call.",
      },
      metadata: {
        type: "object",
        additionalProperties: { type: "string" },
        propertyNames: { pattern: METADATA_KEY },
        description: "Metadata sent with every call (not secret; secrets go in the secret of the same name).",
      },
    },
    required: ["target"],
    additionalProperties: false,
  };
}

export const SECRETS_SCHEMA: JSONSchema = {
  type: "object",
  properties: {
    bearer: {
      type: "string",
      minLength: 1,
      description: 'A token sent as the metadata "authorization: Bearer <token>".',
    },
    metadata: {
      type: "object",
      additionalProperties: { type: "string" },
      propertyNames: { pattern: METADATA_KEY },
      description: 'Secret metadata sent with every call, e.g. {"x-api-key": "…"} (a "-bin" key takes base64).',
    },
  },
  additionalProperties: false,
};

function positive(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : fallback;
}

function metadataOf(value: unknown, where: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new Error(`${where} must map metadata keys to strings`);
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== "string") throw new Error(`${where}["${key}"] must be a string`);
    if (!new RegExp(METADATA_KEY).test(key)) throw new Error(`${where}: "${key}" is not a valid metadata key`);
    if (RESERVED_METADATA.test(key)) throw new Error(`${where}: "${key}" is set by gRPC itself`);
  }
  return { ...(value as Record<string, string>) };
}

export function readConfig(config: Record<string, unknown>): ServiceConfig {
  const target = config.target;
  if (typeof target !== "string" || target === "") throw new Error('config "target" is required ("host:port")');
  return {
    target,
    tls: config.tls === true,
    ...(typeof config.tlsCa === "string" && config.tlsCa !== "" ? { tlsCa: config.tlsCa } : {}),
    timeoutMs: positive(config.timeoutMs, DEFAULT_TIMEOUT_MS),
    maxStreamMessages: positive(config.maxStreamMessages, DEFAULT_MAX_STREAM_MESSAGES),
    maxResponseBytes: positive(config.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES),
    metadata: metadataOf(config.metadata, "config.metadata"),
  };
}

/**
 * The service's secret headers (`ServiceState.secretHeaders`) as call metadata: keys lower-cased, as gRPC wants
 * them, then checked like any metadata. A value gRPC cannot carry (a `-bin` key takes base64; others printable
 * ASCII) is refused without saying it.
 */
export function secretHeaderMetadata(headers: Record<string, string> | undefined): Record<string, string> {
  const lowered: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const key = name.toLowerCase();
    if (Object.hasOwn(lowered, key))
      throw new Error(`secret headers: "${name}" is set twice (metadata keys are lower case)`);
    Object.defineProperty(lowered, key, { value, enumerable: true, writable: true, configurable: true });
  }
  const metadata = metadataOf(lowered, "secret headers");
  for (const [key, value] of Object.entries(metadata)) {
    if (!key.endsWith("-bin") && !/^[ -~]*$/.test(value)) {
      throw new Error(`secret headers: the value of "${key}" is not printable ASCII, which gRPC metadata requires`);
    }
  }
  return metadata;
}

export function readSecrets(secrets: Record<string, unknown>): Secrets {
  const bearer = secrets.bearer;
  return {
    ...(typeof bearer === "string" && bearer !== "" ? { bearer } : {}),
    metadata: metadataOf(secrets.metadata, "secrets.metadata"),
  };
}
