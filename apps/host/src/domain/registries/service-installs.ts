/**
 * Services installed and updated from a registry descriptor: resolve the
 * version, download the definition (capped like any definition), check its
 * SHA-256, then hand the text to the ordinary service lifecycle
 * (docs/architecture.md, "Service lifecycle"), recording the descriptor URL and version on the service.
 */
import { isValidIdentifier } from "@cyrnel/sdk";
import type { RegistryInstallBody, RegistryUpdateResult } from "../../contract/services.js";
import { CyrnelError } from "../../errors.js";
import type { ServiceLifecycle } from "../services/service-lifecycle.js";
import type { RegistryClient } from "./registry-client.js";

/** Registry installs name the adapter only when it is not the bundled OpenAPI one. */
export const DEFAULT_ADAPTER = "openapi";

export class RegistryServiceInstalls {
  constructor(
    private readonly options: { client: RegistryClient; services: ServiceLifecycle; definitionLimitBytes: number },
  ) {}

  async install(input: RegistryInstallBody) {
    const release = await this.options.client.release(
      input.source,
      input.version,
      "definition",
      this.options.definitionLimitBytes,
    );
    const id = input.id ?? release.id;
    if (input.id === undefined && !isValidIdentifier(id)) {
      throw new CyrnelError(
        "bad_request",
        `the descriptor's id "${id}" is not a valid service id (a non-reserved TypeScript identifier); pass "id"`,
      );
    }
    return this.options.services.install({
      id,
      adapter: input.adapter ?? DEFAULT_ADAPTER,
      definition: release.body.toString("utf8"),
      enabled: input.enabled,
      source: input.source,
      version: release.version,
    });
  }

  /**
   * Re-resolves the service's stored descriptor. An artifact with the same
   * text as the installed one is no update (`updated: false`, the recorded
   * version stays), whatever version number the descriptor gives it.
   */
  async update(id: string, input: { version?: string }): Promise<RegistryUpdateResult> {
    const current = await this.options.services.detail(id);
    if (current.source === null) {
      throw new CyrnelError(
        "conflict",
        `service "${id}" was installed directly, not from a registry; update it with PATCH /services/${id}`,
      );
    }
    const release = await this.options.client.release(
      current.source,
      input.version,
      "definition",
      this.options.definitionLimitBytes,
    );
    const result = await this.options.services.update(id, {
      text: release.body.toString("utf8"),
      source: current.source,
      version: release.version,
    });
    return {
      ...result,
      fromVersion: current.version,
      toVersion: result.updated ? release.version : current.version,
    };
  }
}
