/** The tool policies store: one row per service that has one (deleted with the service by its foreign key). */
import type { ServicePolicy } from "./policy.js";

export interface PolicyStore {
  /** Bumped by every write through this store; deletes come with the service's (see `Policies`). */
  readonly revision: number;
  get(serviceId: string): Promise<ServicePolicy | undefined>;
  put(serviceId: string, policy: ServicePolicy): Promise<void>;
}
