/**
 * The catalog runs get, with each service's denied tools named
 * (`ServiceCatalogEntry.denied`): an environment that checks code refuses a
 * call to one before the run starts, instead of the call failing with
 * `403 tool_denied` after the run's earlier calls went out. Made once per
 * catalog and policy revision (a policy is rules over tool ids and
 * annotations, the same for every caller), and frozen like the catalog.
 */
import type { ServiceCatalog, ServiceCatalogEntry } from "@cyrnel/sdk";
import type { ServiceStore } from "../services/service-store.js";
import type { Policies } from "./policies.js";

/** More tools than any service has: one read of a service's tool summaries. */
const EVERY_TOOL = 1_000_000;

export class PolicyCatalog {
  private made: { catalog: ServiceCatalog; revision: string; result: Promise<ServiceCatalog> } | undefined;

  constructor(
    private readonly store: Pick<ServiceStore, "catalog" | "listTools">,
    private readonly policies: Pick<Policies, "actionFor" | "mayDeny" | "revision">,
  ) {}

  async current(): Promise<ServiceCatalog> {
    const revision = this.policies.revision;
    const catalog = await this.store.catalog();
    const made = this.made;
    if (made?.catalog === catalog && made.revision === revision) return made.result;
    const result = this.withDenied(catalog);
    this.made = { catalog, revision, result };
    // A failed read is not kept: the next run reads again.
    result.catch(() => {
      if (this.made?.result === result) this.made = undefined;
    });
    return result;
  }

  private async withDenied(catalog: ServiceCatalog): Promise<ServiceCatalog> {
    const entries: [string, ServiceCatalogEntry][] = [];
    let changed = false;
    for (const [serviceId, entry] of Object.entries(catalog)) {
      let denied: string[] = [];
      if (await this.policies.mayDeny(serviceId)) {
        const reachable = new Set(entry.tools);
        for (const tool of await this.store.listTools({ serviceId, limit: EVERY_TOOL })) {
          if (reachable.has(tool.id) && (await this.policies.actionFor(tool)) === "deny") denied.push(tool.id);
        }
      }
      if (denied.length === 0) entries.push([serviceId, entry]);
      else {
        changed = true;
        denied = Object.freeze(denied) as string[];
        entries.push([serviceId, Object.freeze({ ...entry, denied })]);
      }
    }
    return changed ? Object.freeze(Object.fromEntries(entries)) : catalog;
  }
}
