/**
 * Tells the active environment which services its runs can reach, ahead of
 * the runs: once it is active and again after every change of the catalog
 * (`EnvironmentModule.prepare`, a cyrnel extension). typescript-ivm renders
 * and parses the services' type declarations then, so that the first
 * checked run after a restart or an install does not wait for them.
 *
 * Changes come in bursts (an install writes a service and then enables it;
 * another host's change arrives with others), so they are gathered for
 * {@link SETTLE_MS} and the catalog is read once for all of them.
 */
import type { Logger, ServiceCatalog } from "@cyrnel/sdk";
import { messageOf } from "../errors.js";
import type { ModuleEntries } from "./modules/module-entries.js";
import type { ModuleEvents } from "./modules/module-events.js";
import type { ServiceStore } from "./services/service-store.js";

/** How long changes are gathered before the catalog is read and handed over. */
const SETTLE_MS = 200;

export class EnvironmentPreparation {
  private timer: NodeJS.Timeout | undefined;
  private unwatch: (() => void) | undefined;

  constructor(
    private readonly store: Pick<ServiceStore, "catalog" | "watch">,
    private readonly modules: Pick<ModuleEntries, "activeEnvironment">,
    private readonly logger: Logger,
  ) {}

  /** From now on (an environment already active is told at once). */
  start(events: ModuleEvents): void {
    events.on("environmentActivated", () => this.schedule(0));
    this.unwatch = this.store.watch(() => this.schedule(SETTLE_MS));
    this.schedule(0);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.unwatch?.();
  }

  private schedule(delayMs: number): void {
    if (this.timer !== undefined && delayMs > 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.hand();
    }, delayMs);
    this.timer.unref();
  }

  private async hand(): Promise<void> {
    const environment = this.modules.activeEnvironment();
    if (environment?.module.prepare === undefined) return;
    let catalog: ServiceCatalog;
    try {
      catalog = await this.store.catalog();
    } catch (error) {
      // The next change tries again; until then the first run that needs a service prepares it.
      this.logger.warn("could not read the service catalog to prepare the environment", { error: messageOf(error) });
      return;
    }
    try {
      environment.module.prepare(catalog);
    } catch (error) {
      this.logger.warn("the environment failed to prepare the services", {
        environment: environment.id,
        error: messageOf(error),
      });
    }
  }
}
