/**
 * Which tools cannot authenticate yet: a tool whose adapter says which
 * secrets a call needs (`ToolDefinition.secrets`, alternatives of secret
 * names) and none of whose alternatives is set. Tool lists, a tool's
 * answer and the published types mark it (`missingSecrets`), so an agent
 * knows a call would fail before it writes the code, and an operator sees
 * what to set.
 *
 * A mark, never a refusal, and only where the host can tell: a service
 * with secret headers or query parameters set (`header:…`, `query:…`),
 * or with an OAuth client for connected accounts, may authenticate
 * otherwise, so none of its tools is marked. Secret names are read from
 * the rows (never the values), once per service until a secret or a
 * service changes on any host.
 */
import type { SecretStore } from "../secrets/secret-store.js";
import { RESERVED_PREFIXES } from "./secret-headers.js";

/** What decides a service's marks: the names of its secrets that are set, and whether it authenticates otherwise. */
interface ServiceCredentials {
  set: ReadonlySet<string>;
  otherwise: boolean;
}

export interface ToolCredentialsOptions {
  secrets: Pick<SecretStore, "names" | "revision">;
  /** Moves with every change of services, OAuth settings included (`Revisions`). */
  services: { readonly revision: number };
  /** Whether the service has an OAuth client set up for connected accounts. */
  oauthConfigured(serviceId: string): Promise<boolean>;
}

export class ToolCredentials {
  /** The {@link revision} `services` was read at. */
  private readAt = "";
  private readonly services = new Map<string, Promise<ServiceCredentials>>();

  constructor(private readonly options: ToolCredentialsOptions) {}

  /** Moves whenever a mark may have changed (a secret or a service changed, here or on another host). */
  get revision(): string {
    return `${this.options.secrets.revision}:${this.options.services.revision}`;
  }

  /** The tool's secret alternatives when none is set (a call would fail for want of credentials); else undefined. */
  async missing(tool: { serviceId: string; secrets: string[][] | null }): Promise<string[][] | undefined> {
    if (marksNothing(tool.secrets)) return undefined;
    return missingOf(await this.of(tool.serviceId), tool.secrets);
  }

  /** {@link missing} for each tool of the service, asked without waiting (for many tools: one read of its secrets). */
  async missingOf(serviceId: string): Promise<(tool: { secrets: string[][] | null }) => string[][] | undefined> {
    const service = await this.of(serviceId);
    return (tool) => (marksNothing(tool.secrets) ? undefined : missingOf(service, tool.secrets));
  }

  private of(serviceId: string): Promise<ServiceCredentials> {
    const revision = this.revision;
    if (revision !== this.readAt) {
      this.services.clear();
      this.readAt = revision;
    }
    let state = this.services.get(serviceId);
    if (state === undefined) {
      state = this.read(serviceId);
      this.services.set(serviceId, state);
      // A failed read is not kept: the next one reads again.
      state.catch(() => {
        if (this.services.get(serviceId) === state) this.services.delete(serviceId);
      });
    }
    return state;
  }

  private async read(serviceId: string): Promise<ServiceCredentials> {
    const names = await this.options.secrets.names({ type: "service", id: serviceId });
    const reserved = names.some((name) => RESERVED_PREFIXES.some(({ prefix }) => name.startsWith(prefix)));
    return {
      set: new Set(names),
      otherwise: reserved || (await this.options.oauthConfigured(serviceId)),
    };
  }
}

/** A tool that needs no secret, or whose adapter allows a call without one, is never marked. */
function marksNothing(needs: string[][] | null): needs is null {
  return needs === null || needs.length === 0 || needs.some((names) => names.length === 0);
}

function missingOf(service: ServiceCredentials, needs: string[][]): string[][] | undefined {
  if (service.otherwise || needs.some((names) => names.every((name) => service.set.has(name)))) return undefined;
  return needs;
}
