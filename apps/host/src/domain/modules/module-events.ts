/**
 * What module activation means for the rest of the host, as events. The
 * module registry publishes them and awaits every subscriber before it goes
 * on; the service lifecycle and the process runner subscribe (in their
 * constructors), so modules never call into services or processes.
 */
import { AwaitedEvents } from "../../lib/awaited-events.js";

export interface ModuleEventMap {
  /** An adapter's `setup()` succeeded. Services hydrate its enabled services. */
  adapterActivated: { adapterId: string };
  /**
   * New code of an adapter has started (or was loaded while the adapter is disabled: `generateDefinition` is pure).
   * Services regenerate its services from their stored definitions. Published before `adapterActivated`.
   */
  adapterReplaced: { adapterId: string };
  /** A custom adapter is about to be deleted; its files go once subscribers are done. Services delete its services. */
  adapterRemoving: { adapterId: string };
  /**
   * An adapter reported that one of its services no longer matches its end service (`reportStale` of the SDK's
   * setup context). Services mark it stale, if it is that adapter's.
   */
  serviceStale: { adapterId: string; serviceId: string; reason: string };
  /** An environment's `setup()` succeeded and it is the active one. Its services are prepared (environment-prepare.ts). */
  environmentActivated: { environmentId: string };
  /**
   * Another environment became the active one. This one is torn down once subscribers resolve: the process runner
   * resolves when its running processes have ended.
   */
  environmentDraining: { environmentId: string };
  /**
   * The environment is torn down right after subscribers resolve (disabled, deleted, vanished from disk, or
   * restarted with changed config or secrets). The process runner cancels its processes.
   */
  environmentStopping: { environmentId: string };
}

export class ModuleEvents extends AwaitedEvents<ModuleEventMap> {}
