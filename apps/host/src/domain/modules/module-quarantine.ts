/**
 * Quarantine of custom modules whose code stopped the host or never
 * finished loading, kept as one small JSON file per module in
 * `$CYRNEL_DATA_DIR/modules/.quarantine/<id>.json` (a dot-folder is never
 * taken for a module). A quarantined module's code is not run again — not at
 * the next start, not on reload — until its files change (its fingerprint
 * then differs) or it is deleted.
 *
 * The marker doubles as a crash detector: it is written *before* the host
 * imports, instantiates or sets up a custom module and removed once that
 * call settles. If the host dies in between (the module killed it, or looped
 * forever and the host was killed), the marker is still there at the next
 * start and the module is skipped instead of taking the host down again.
 * A host killed from outside at that moment quarantines an innocent module
 * the same way; its record says so and any change to its files lifts it.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

interface Marker {
  fingerprint: string;
  reason: string;
  since: string;
}

export class ModuleQuarantine {
  private readonly dir: string;

  constructor(modulesDir: string) {
    this.dir = join(modulesDir, ".quarantine");
  }

  /** Why the module with these files is quarantined, or null when it may be loaded. */
  reason(id: string, fingerprint: string | null): string | null {
    const marker = this.read(id);
    return marker !== null && marker.fingerprint === fingerprint ? marker.reason : null;
  }

  /** Marks module code as running (import, instantiate, setup) until {@link settled} is called. */
  running(id: string, fingerprint: string | null): void {
    const since = new Date().toISOString();
    this.write(id, {
      fingerprint: fingerprint ?? "",
      reason: `the host stopped while this module's code was loading or starting (${since})`,
      since,
    });
  }

  /** The call into module code ended (successfully or with an error): nothing to hold against it. */
  settled(id: string): void {
    rmSync(join(this.dir, `${id}.json`), { force: true });
  }

  /** Quarantines the module until its files change. */
  hold(id: string, fingerprint: string | null, reason: string): void {
    this.write(id, { fingerprint: fingerprint ?? "", reason, since: new Date().toISOString() });
  }

  private read(id: string): Marker | null {
    const file = join(this.dir, `${id}.json`);
    if (!existsSync(file)) return null;
    try {
      return JSON.parse(readFileSync(file, "utf8")) as Marker;
    } catch {
      return null;
    }
  }

  private write(id: string, marker: Marker): void {
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(join(this.dir, `${id}.json`), JSON.stringify(marker));
  }
}
