/**
 * Secrets of services and modules, one encrypted row per top-level value.
 * Values are JSON-encoded before sealing, so objects (e.g. basic-auth
 * credentials) work too. Nothing here logs or returns plaintext except
 * `read`, which is for hydration only. Sealing happens here, once for both
 * dialects; the rows go through a {@link SecretRowStore}
 * (`db/stores/secret-store.ts`), which only ever sees
 * ciphertext.
 */
import { CyrnelError } from "../../errors.js";
import type { Sealed, SecretBox } from "./secret-box.js";

/**
 * Whose values these are: a service's or a module's secrets, a service's
 * OAuth client secret (`service-oauth`), a connected account's tokens
 * (`connection`, by connection id).
 */
export type SecretOwner = { type: "service" | "module" | "service-oauth" | "connection"; id: string };
/** One sealed value as stored (see SecretBox). */
export interface SecretRow {
  ownerType: SecretOwner["type"];
  ownerId: string;
  name: string;
  keyId: string;
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
  updatedAt: string;
}
export type SealedValue = Sealed & { name: string };

/** The rows of the `secrets` table. */
export interface SecretRowStore {
  /** The rows of one owner. */
  rows(owner: SecretOwner): Promise<SecretRow[]>;
  /** Every row of `owner` replaced by `values`, in one transaction. */
  replace(owner: SecretOwner, values: readonly SealedValue[]): Promise<void>;
  /** Rows sealed under another key than `keyId`. */
  sealedWithOtherKeys(keyId: string): Promise<SecretRow[]>;
  /**
   * Swaps a row's ciphertext for `sealed` if it still holds what `row` read
   * (a conditional update: two hosts rotating at once re-seal a value once,
   * and a value replaced meanwhile is left alone). Whether it was swapped.
   */
  reseal(row: SecretRow, sealed: Sealed): Promise<boolean>;
}

const additionalData = (owner: SecretOwner, name: string) => `${owner.type}\u0000${owner.id}\u0000${name}`;

export class SecretStore {
  /** Bumped by every write, so what is derived from the values (the masks of call records) is kept until it changes. */
  private written = 0;

  constructor(
    private readonly rows: SecretRowStore,
    private readonly box: SecretBox,
  ) {}

  get revision(): number {
    return this.written;
  }

  /** Decrypted values of one owner. A value that cannot be opened (unknown key, tampering) is a 409 naming it. */
  async read(owner: SecretOwner): Promise<Record<string, unknown>> {
    const values: Record<string, unknown> = {};
    for (const row of await this.rows.rows(owner)) {
      try {
        values[row.name] = JSON.parse(this.box.open(row, additionalData(owner, row.name)));
      } catch (error) {
        throw new CyrnelError(
          "conflict",
          `secret "${row.name}" of ${owner.type} "${owner.id}" cannot be decrypted: ${(error as Error).message}`,
        );
      }
    }
    return values;
  }

  async names(owner: SecretOwner): Promise<string[]> {
    return (await this.rows.rows(owner)).map((row) => row.name).sort();
  }

  /** Replace every value of `owner` with `values`, in one transaction. */
  async replace(owner: SecretOwner, values: Record<string, unknown>): Promise<void> {
    const sealed = this.seal(owner, values);
    try {
      await this.rows.replace(owner, sealed);
    } finally {
      this.written++;
    }
  }

  /**
   * `values` sealed for `owner`, for a store that writes them in its own
   * transaction with the row they belong to (domain/connections/).
   */
  seal(owner: SecretOwner, values: Record<string, unknown>): SealedValue[] {
    return Object.entries(values)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => ({ name, ...this.box.seal(JSON.stringify(value), additionalData(owner, name)) }));
  }

  /**
   * One short-lived value sealed into a single text (key id, IV, ciphertext
   * and tag, base64url, dot-separated) for a column of its own; `label` is
   * authenticated, so the text opens only under the same label.
   */
  sealText(label: string, text: string): string {
    const sealed = this.box.seal(text, label);
    return [sealed.keyId, sealed.iv, sealed.ciphertext, sealed.tag]
      .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
      .join(".");
  }

  /** The text `sealText` sealed under `label`; throws when it cannot be opened. */
  openText(label: string, sealed: string): string {
    const [keyId, iv, ciphertext, tag] = sealed.split(".");
    if (keyId === undefined || iv === undefined || ciphertext === undefined || tag === undefined) {
      throw new Error("not a sealed text");
    }
    const bytes = (part: string) => Buffer.from(part, "base64url");
    return this.box.open({ keyId, iv: bytes(iv), ciphertext: bytes(ciphertext), tag: bytes(tag) }, label);
  }

  /**
   * Counts a removal done elsewhere: a service's and a module's secrets go
   * with their row, in the transaction that deletes it (ServiceStore,
   * ModuleStore).
   */
  removed(): void {
    this.written++;
  }

  /**
   * Counts a change another host sharing the database made (or changes that
   * were missed): what is derived from the values is read again.
   */
  changedElsewhere(): void {
    this.written++;
  }

  /**
   * Re-seal every value written under a previous key with the current one.
   * Values whose key is unknown are left as they are and reported.
   */
  async rotate(): Promise<{ rotated: number; unreadable: SecretOwner[] }> {
    let rotated = 0;
    const unreadable: SecretOwner[] = [];
    try {
      for (const row of await this.rows.sealedWithOtherKeys(this.box.currentKeyId)) {
        const owner = { type: row.ownerType, id: row.ownerId };
        if (!this.box.canOpen(row.keyId)) {
          unreadable.push(owner);
          continue;
        }
        const aad = additionalData(owner, row.name);
        if (await this.rows.reseal(row, this.box.seal(this.box.open(row, aad), aad))) rotated++;
      }
    } finally {
      this.written++;
    }
    return { rotated, unreadable };
  }
}
