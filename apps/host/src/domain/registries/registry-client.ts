/**
 * Reads a registry over HTTP (format: examples/registry/README.md): the well-known document,
 * index pages (following `next`), descriptors, and release artifacts
 * checked against their SHA-256. Every URL inside a document is resolved
 * against the URL that document was finally served from, so a registry can
 * be a static folder served from any host, port or path prefix.
 *
 * A registry that cannot be reached or fails (connection refused, timeout,
 * redirect loop, HTTP 5xx) is a 502 `upstream_error`; one that answers with
 * something unusable (HTTP 4xx, invalid JSON, a document of the wrong shape,
 * an artifact whose sha256 differs) is a 400 `bad_request`.
 */
import { createHash } from "node:crypto";
import type { JSONSchema } from "@cyrnel/sdk";
import type { IndexItem } from "../../contract/registries.js";
import { CyrnelError } from "../../errors.js";
import { download, downloadJson } from "../../lib/download.js";
import { type SchemaValidator, summariseIssues } from "../../lib/json-schema.js";
import type { HostLogger } from "../../log.js";
import { selectVersion } from "./version-selection.js";

export const WELL_KNOWN_PATH = ".well-known/cyrnel-registry.json";

/** Registry documents are small JSON files; this bounds each one. */
export const REGISTRY_DOCUMENT_LIMIT_BYTES = 4 * 1024 * 1024;
/** Bounds on one walk of an index's `next` chain (a registry cannot make the host fetch forever). */
export const INDEX_MAX_PAGES = 50;
export const INDEX_MAX_ITEMS = 10_000;

export interface RegistryDocument {
  id: string;
  name: string;
  /** Absolute URLs (resolved), or null when the registry publishes no such index. */
  definitionsUrl: string | null;
  modulesUrl: string | null;
}

export interface Descriptor {
  id: string;
  latestVersion: string;
  versions: Record<string, { url: string; sha256: string }>;
}

/** One downloaded, hash-checked version of a descriptor's artifact. */
export interface Release {
  /** The descriptor's id. */
  id: string;
  version: string;
  /** Absolute artifact URL. */
  url: string;
  sha256: string;
  body: Buffer;
}

const WELL_KNOWN_SCHEMA: JSONSchema = {
  type: "object",
  required: ["id", "name"],
  properties: {
    id: { type: "string", minLength: 1 },
    name: { type: "string", minLength: 1 },
    definitions: { type: "string", minLength: 1 },
    modules: { type: "string", minLength: 1 },
  },
};

const INDEX_SCHEMA: JSONSchema = {
  type: "object",
  required: ["items"],
  properties: {
    items: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "name", "source"],
        properties: {
          id: { type: "string", minLength: 1 },
          name: { type: "string" },
          description: { type: "string" },
          kind: { type: "string" },
          source: { type: "string", minLength: 1 },
        },
      },
    },
    next: { type: ["string", "null"] },
  },
};

const DESCRIPTOR_SCHEMA: JSONSchema = {
  type: "object",
  required: ["id", "latestVersion", "versions"],
  properties: {
    id: { type: "string", minLength: 1 },
    latestVersion: { type: "string", minLength: 1 },
    versions: {
      type: "object",
      minProperties: 1,
      additionalProperties: {
        type: "object",
        required: ["url", "sha256"],
        properties: {
          url: { type: "string", minLength: 1 },
          sha256: { type: "string", pattern: "^[0-9a-fA-F]{64}$" },
        },
      },
    },
  },
};

export interface RegistryClientOptions {
  validator: SchemaValidator;
  logger: HostLogger;
  /** The idle timeout and the bound on the whole transfer (lib/download.ts). */
  timeoutMs: number;
  totalTimeoutMs?: number;
  /** Refuse registries and artifacts on non-public addresses (CYRNEL_DOWNLOAD_DENY_PRIVATE). */
  denyPrivate?: boolean;
}

export class RegistryClient {
  constructor(private readonly options: RegistryClientOptions) {}

  /** Fetches and checks `<base>/.well-known/cyrnel-registry.json`; returns it with its index URLs resolved. */
  async wellKnown(baseUrl: string): Promise<{ url: string; base: string; document: RegistryDocument }> {
    const url = wellKnownUrl(baseUrl);
    const { value, finalUrl } = await this.fetchJson(url, "registry document");
    const raw = this.check(WELL_KNOWN_SCHEMA, value, "registry document", url) as {
      id: string;
      name: string;
      definitions?: string;
      modules?: string;
    };
    return {
      url,
      base: url.slice(0, -WELL_KNOWN_PATH.length),
      document: {
        id: raw.id,
        name: raw.name,
        definitionsUrl: raw.definitions === undefined ? null : resolveUrl(raw.definitions, finalUrl, "definitions"),
        modulesUrl: raw.modules === undefined ? null : resolveUrl(raw.modules, finalUrl, "modules"),
      },
    };
  }

  /**
   * Every item of an index, following `next` links. Stops (with a warning in
   * the log) after {@link INDEX_MAX_PAGES} pages or {@link INDEX_MAX_ITEMS}
   * items, and on a `next` that points back at a page already read.
   */
  async index(startUrl: string, what: string): Promise<IndexItem[]> {
    const items: IndexItem[] = [];
    const seen = new Set<string>();
    let url: string | null = startUrl;
    for (let page = 0; url !== null; page++) {
      if (seen.has(url)) {
        this.options.logger.warn("registry index links back to a page already read; stopped there", { url });
        break;
      }
      if (page >= INDEX_MAX_PAGES || items.length >= INDEX_MAX_ITEMS) {
        this.options.logger.warn("registry index is longer than the host reads; the rest is ignored", {
          url: startUrl,
          pages: page,
          items: items.length,
        });
        break;
      }
      seen.add(url);
      const { value, finalUrl } = await this.fetchJson(url, what);
      const raw = this.check(INDEX_SCHEMA, value, what, url) as {
        items: { id: string; name: string; description?: string; kind?: string; source: string }[];
        next?: string | null;
      };
      for (const item of raw.items.slice(0, INDEX_MAX_ITEMS - items.length)) {
        items.push({
          id: item.id,
          name: item.name,
          description: item.description ?? "",
          kind: item.kind ?? null,
          source: resolveUrl(item.source, finalUrl, `source of "${item.id}"`),
        });
      }
      url = raw.next ? resolveUrl(raw.next, finalUrl, "next") : null;
    }
    return items;
  }

  /** Fetches a descriptor; its artifact URLs come back resolved. */
  async descriptor(source: string): Promise<Descriptor> {
    const url = checkHttpUrl(source, "descriptor");
    const { value, finalUrl } = await this.fetchJson(url, "descriptor");
    const raw = this.check(DESCRIPTOR_SCHEMA, value, "descriptor", url) as Descriptor;
    if (!Object.hasOwn(raw.versions, raw.latestVersion)) {
      throw new CyrnelError(
        "bad_request",
        `descriptor at ${url} is not valid: latestVersion "${raw.latestVersion}" is not one of its versions`,
      );
    }
    const versions: Descriptor["versions"] = {};
    for (const [version, entry] of Object.entries(raw.versions)) {
      versions[version] = {
        url: resolveUrl(entry.url, finalUrl, `url of version ${version}`),
        sha256: entry.sha256.toLowerCase(),
      };
    }
    return { id: raw.id, latestVersion: raw.latestVersion, versions };
  }

  /**
   * Resolves `requested` (exact version, semver range, or undefined for the
   * latest) against the descriptor at `source`, downloads that version's
   * artifact and checks its SHA-256. A mismatch is a 400 and nothing is
   * returned, so callers change nothing.
   */
  async release(source: string, requested: string | undefined, what: string, maxBytes: number): Promise<Release> {
    const descriptor = await this.descriptor(source);
    const version = selectVersion(descriptor, requested, source);
    const entry = descriptor.versions[version]!;
    const { body } = await download(entry.url, {
      what,
      maxBytes,
      timeoutMs: this.options.timeoutMs,
      totalTimeoutMs: this.options.totalTimeoutMs,
      upstreamFailure: "upstream_error",
      denyPrivate: this.options.denyPrivate,
    });
    const actual = createHash("sha256").update(body).digest("hex");
    if (actual !== entry.sha256) {
      throw new CyrnelError(
        "bad_request",
        `sha256 mismatch for ${descriptor.id} ${version} downloaded from ${entry.url}: the descriptor says ` +
          `${entry.sha256}, the file hashes to ${actual}; nothing was installed`,
      );
    }
    return { id: descriptor.id, version, url: entry.url, sha256: actual, body };
  }

  private async fetchJson(url: string, what: string): Promise<{ value: unknown; finalUrl: string }> {
    const { value, url: finalUrl } = await downloadJson(url, {
      what,
      maxBytes: REGISTRY_DOCUMENT_LIMIT_BYTES,
      timeoutMs: this.options.timeoutMs,
      totalTimeoutMs: this.options.totalTimeoutMs,
      upstreamFailure: "upstream_error",
      denyPrivate: this.options.denyPrivate,
    });
    return { value, finalUrl };
  }

  private check(schema: JSONSchema, value: unknown, what: string, url: string): unknown {
    const result = this.options.validator.validate(schema, value);
    if (!result.valid)
      throw new CyrnelError("bad_request", summariseIssues(`${what} at ${url} is not valid`, result.errors));
    return result.value;
  }
}

/**
 * `https://example.org/reg` → `https://example.org/reg/.well-known/cyrnel-registry.json`.
 * The well-known URL itself is accepted as well.
 */
export function wellKnownUrl(baseUrl: string): string {
  const url = new URL(checkHttpUrl(baseUrl, "registry"));
  url.search = "";
  url.hash = "";
  if (url.pathname.endsWith(`/${WELL_KNOWN_PATH}`)) return url.href;
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return new URL(WELL_KNOWN_PATH, url).href;
}

/** Resolves a (possibly relative) URL found in a registry document against that document's URL. */
export function resolveUrl(reference: string, documentUrl: string, what: string): string {
  let url: URL;
  try {
    url = new URL(reference, documentUrl);
  } catch {
    throw new CyrnelError("bad_request", `${what} "${reference}" in ${documentUrl} is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CyrnelError("bad_request", `${what} "${reference}" in ${documentUrl} must be an http or https URL`);
  }
  return url.href;
}

function checkHttpUrl(raw: string, what: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CyrnelError("bad_request", `${what} URL "${raw}" is not a valid absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CyrnelError("bad_request", `${what} URL must be http or https, got "${url.protocol}"`);
  }
  return url.href;
}
