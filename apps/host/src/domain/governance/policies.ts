/**
 * Tool policies of services: reading and setting them (`/services/:id/policy`)
 * and the effective action of a tool, which tool records, tool docs and the
 * tool gate show or apply. Compiled policies are kept until a policy or a
 * service changes: the gate asks on every call.
 */

import { MAX_RULES } from "../../contract/limits.js";
import { CyrnelError, notFound } from "../../errors.js";
import type { ServiceStore } from "../services/service-store.js";
import {
  CompiledPolicy,
  DEFAULT_POLICY,
  globProblem,
  type PolicyAction,
  type PolicySubject,
  type ServicePolicy,
} from "./policy.js";
import type { PolicyStore } from "./policy-store.js";

export class Policies {
  private readonly compiled = new Map<string, CompiledPolicy>();
  /** The revisions `compiled` was built at: a deleted service takes its policy with it, a new one starts with none. */
  private compiledAt = "";
  /** Counts policy changes made by other hosts sharing the database (this host's own are the store's revision). */
  private elsewhere = 0;

  constructor(
    private readonly store: PolicyStore,
    private readonly services: Pick<ServiceStore, "get" | "revision">,
  ) {}

  /** Changes whenever an effective action may have changed. */
  get revision(): string {
    return `${this.store.revision}:${this.services.revision}:${this.elsewhere}`;
  }

  /** Another host changed a policy (or changes were missed): compiled policies are read again. */
  changedElsewhere(): void {
    this.elsewhere++;
  }

  /** The service's policy; one that was never set is the default (allow everything). */
  async get(serviceId: string): Promise<ServicePolicy> {
    await this.requireService(serviceId);
    return (await this.store.get(serviceId)) ?? { ...DEFAULT_POLICY, rules: [] };
  }

  /** Replaces the service's policy. Rules may name tools the service does not have (yet, or any more). */
  async set(serviceId: string, policy: ServicePolicy): Promise<ServicePolicy> {
    await this.requireService(serviceId);
    if (policy.rules.length > MAX_RULES) {
      throw new CyrnelError("bad_request", `a policy has at most ${MAX_RULES} rules, got ${policy.rules.length}`);
    }
    policy.rules.forEach((rule, index) => {
      const problem = rule.tools === undefined ? null : globProblem(rule.tools);
      if (problem) throw new CyrnelError("bad_request", `rules[${index}].tools "${rule.tools}" ${problem}`);
    });
    await this.store.put(serviceId, policy);
    return this.get(serviceId);
  }

  /** How long a call of the service waits for a decision, when its policy says (null: the host's default). */
  async approvalTimeoutOf(serviceId: string): Promise<number | null> {
    return (await this.store.get(serviceId))?.approvalTimeoutMs ?? null;
  }

  /** What a call of this tool gets. */
  async actionFor(tool: PolicySubject & { serviceId: string }): Promise<PolicyAction> {
    return (await this.compiledFor(tool.serviceId)).actionFor(tool);
  }

  /** What a call of each tool of the service gets, asked without waiting (for many tools: one read of the policy). */
  async actionsOf(serviceId: string): Promise<(tool: PolicySubject) => PolicyAction> {
    const compiled = await this.compiledFor(serviceId);
    return (tool) => compiled.actionFor(tool);
  }

  /** Whether the service's policy could deny any tool (so that which ones is worth asking). */
  async mayDeny(serviceId: string): Promise<boolean> {
    return (await this.compiledFor(serviceId)).mayDeny;
  }

  private async compiledFor(serviceId: string): Promise<CompiledPolicy> {
    if (this.compiledAt !== this.revision) {
      this.compiled.clear();
      this.compiledAt = this.revision;
    }
    let policy = this.compiled.get(serviceId);
    if (policy === undefined) {
      // Kept only for the revision it was read at: a write during the read makes the next call read again.
      const revision = this.revision;
      policy = new CompiledPolicy((await this.store.get(serviceId)) ?? DEFAULT_POLICY);
      if (this.revision === revision && this.compiledAt === revision) this.compiled.set(serviceId, policy);
    }
    return policy;
  }

  private async requireService(serviceId: string): Promise<void> {
    if (!(await this.services.get(serviceId))) throw notFound(`service "${serviceId}"`);
  }
}
