/**
 * Config and secrets of one kind of owner (modules, services), written
 * once: read with defaults applied, patch (JSON merge patch or RFC 6902,
 * lib/json-patch.ts), validate against the owner's schema, store, put to
 * use, and roll the previous values back if putting them to use fails.
 *
 * Config lives in the owner's own row (`writeConfig`), secrets in the
 * SecretStore (sealed, write-only: only their names are ever returned).
 * What "put to use" means is the owner's: a module restarts, a service is
 * re-hydrated. Each patch holds the owner's lock, so it cannot interleave
 * with an enable or an update of the same owner across their awaits.
 * Secret names the owner interprets itself (a service's `header:` and
 * `query:` secrets) are checked by the owner, not by its schema.
 */
import { CyrnelError } from "../../errors.js";
import { applyPatch } from "../../lib/json-patch.js";
import { type SchemaValidator, summariseIssues, type ValidationIssue } from "../../lib/json-schema.js";
import type { Locks } from "../../lib/keyed-mutex.js";
import type { SecretOwner, SecretStore } from "../secrets/secret-store.js";

export type SettingsKind = "config" | "secrets";
type Values = Record<string, unknown>;

/** One kind of owner of settings. `T` is what `find` returns: the owner's state at the start of a patch. */
export interface SettingsOwner<T> {
  /** Whose secrets these are in the SecretStore. */
  type: SecretOwner["type"];
  /** The owner's lock, shared with its other operations. */
  locks: Locks;
  /** The owner's current state, or a 404. */
  find(id: string): Promise<T>;
  /** The schema values are shown and used with (its defaults are applied). */
  schema(owner: T, kind: SettingsKind): Record<string, unknown>;
  /** The schema a patched value must satisfy, when it differs from `schema` (e.g. while disabled). */
  patchSchema?(owner: T, kind: SettingsKind): Record<string, unknown>;
  /**
   * Secrets the host itself interprets by name (a service's secret headers and query parameters,
   * `domain/services/secret-headers.ts`): what is wrong with them, and the other secrets, which alone are validated
   * against the owner's schema (so a schema that allows no other properties still accepts them).
   */
  reservedSecrets?(values: Values): { others: Values; issues: ValidationIssue[] };
  /** The head of the `validation_failed` message, e.g. `invalid module config`. */
  invalid(owner: T, kind: SettingsKind): string;
  /** The config as stored (defaults not applied). */
  storedConfig(owner: T): Values;
  writeConfig(id: string, config: Values): Promise<void>;
  /** Puts the stored values to use (restart, re-hydrate). Throwing rolls them back; the error reaches the caller. */
  apply(owner: T): Promise<void>;
  /** Puts the restored previous values to use after `apply` failed; deals with its own failure. */
  reapply(owner: T): Promise<void>;
}

export class Settings<T> {
  constructor(
    private readonly owner: SettingsOwner<T>,
    private readonly secrets: SecretStore,
    private readonly validator: SchemaValidator,
  ) {}

  /** The config with its schema's defaults applied: what a patch applies to, and what the owner is given. */
  async config(id: string): Promise<Values> {
    return this.shown(await this.owner.find(id));
  }

  patchConfig(id: string, patch: unknown): Promise<Values> {
    return this.owner.locks.run(id, async () => {
      const owner = await this.owner.find(id);
      const previous = this.owner.storedConfig(owner);
      // Patches apply to what GET shows (defaults included), so `replace /retries` works on a default value.
      const next = applyPatch(this.shown(owner), patch);
      this.requireValid(owner, "config", next);
      await this.owner.writeConfig(id, next);
      await this.apply(owner, () => this.owner.writeConfig(id, previous));
      return this.config(id);
    });
  }

  /** Names of the secrets that have a value (never the values). */
  async secretNames(id: string): Promise<string[]> {
    await this.owner.find(id);
    return this.secrets.names(this.secretOwner(id));
  }

  patchSecrets(id: string, patch: unknown): Promise<string[]> {
    return this.owner.locks.run(id, async () => {
      const owner = await this.owner.find(id);
      const secretOwner = this.secretOwner(id);
      const previous = await this.secrets.read(secretOwner);
      // `test` would let a caller probe secret values one guess at a time.
      const next = applyPatch(previous, patch, { forbidden: ["test"] });
      this.requireValid(owner, "secrets", next);
      await this.secrets.replace(secretOwner, next);
      await this.apply(owner, () => this.secrets.replace(secretOwner, previous));
      return this.secrets.names(secretOwner);
    });
  }

  private shown(owner: T): Values {
    return this.validator.validate(this.owner.schema(owner, "config"), this.owner.storedConfig(owner)).value as Values;
  }

  private requireValid(owner: T, kind: SettingsKind, value: Values): void {
    const schema = this.owner.patchSchema?.(owner, kind) ?? this.owner.schema(owner, kind);
    const reserved =
      kind === "secrets" && this.owner.reservedSecrets
        ? this.owner.reservedSecrets(value)
        : { others: value, issues: [] };
    const issues = [...reserved.issues, ...this.validator.validate(schema, reserved.others).errors];
    if (issues.length > 0) {
      throw new CyrnelError("validation_failed", summariseIssues(this.owner.invalid(owner, kind), issues), issues);
    }
  }

  private async apply(owner: T, restore: () => Promise<void>): Promise<void> {
    try {
      await this.owner.apply(owner);
    } catch (error) {
      await restore();
      await this.owner.reapply(owner);
      throw error;
    }
  }

  private secretOwner(id: string): SecretOwner {
    return { type: this.owner.type, id };
  }
}
