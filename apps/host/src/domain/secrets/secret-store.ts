/**
 * Secrets of services and modules, one encrypted row per top-level value.
 * Values are JSON-encoded before sealing, so objects (e.g. basic-auth
 * credentials) work too. Nothing here logs or returns plaintext except
 * `read`, which is for hydration only.
 */
import { and, eq, ne } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { secrets } from "../../db/schema.js";
import { CyrnelError } from "../../errors.js";
import type { SecretBox } from "./secret-box.js";

export type SecretOwner = { type: "service" | "module"; id: string };

const additionalData = (owner: SecretOwner, name: string) => `${owner.type}\u0000${owner.id}\u0000${name}`;

export class SecretStore {
  /** Bumped by every write, so what is derived from the values (the masks of call records) is kept until it changes. */
  private written = 0;

  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
  ) {}

  get revision(): number {
    return this.written;
  }

  /** Decrypted values of one owner. A value that cannot be opened (unknown key, tampering) is a 409 naming it. */
  read(owner: SecretOwner): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const row of this.rows(owner)) {
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

  names(owner: SecretOwner): string[] {
    return this.rows(owner)
      .map((row) => row.name)
      .sort();
  }

  /** Replace every value of `owner` with `values` (call inside a transaction for atomicity with other writes). */
  replace(owner: SecretOwner, values: Record<string, unknown>): void {
    this.written++;
    const now = new Date().toISOString();
    this.remove(owner);
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) continue;
      const sealed = this.box.seal(JSON.stringify(value), additionalData(owner, name));
      this.db
        .insert(secrets)
        .values({ ownerType: owner.type, ownerId: owner.id, name, ...sealed, updatedAt: now })
        .run();
    }
  }

  remove(owner: SecretOwner): void {
    this.written++;
    this.db
      .delete(secrets)
      .where(and(eq(secrets.ownerType, owner.type), eq(secrets.ownerId, owner.id)))
      .run();
  }

  /**
   * Re-seal every value written under a previous key with the current one.
   * Values whose key is unknown are left as they are and reported.
   */
  rotate(): { rotated: number; unreadable: SecretOwner[] } {
    this.written++;
    let rotated = 0;
    const unreadable: SecretOwner[] = [];
    this.db.transaction((tx) => {
      const stale = tx.select().from(secrets).where(ne(secrets.keyId, this.box.currentKeyId)).all();
      for (const row of stale) {
        const owner = { type: row.ownerType, id: row.ownerId };
        if (!this.box.canOpen(row.keyId)) {
          unreadable.push(owner);
          continue;
        }
        const aad = additionalData(owner, row.name);
        const sealed = this.box.seal(this.box.open(row, aad), aad);
        tx.update(secrets)
          .set({ ...sealed, updatedAt: new Date().toISOString() })
          .where(
            and(eq(secrets.ownerType, row.ownerType), eq(secrets.ownerId, row.ownerId), eq(secrets.name, row.name)),
          )
          .run();
        rotated++;
      }
    });
    return { rotated, unreadable };
  }

  private rows(owner: SecretOwner) {
    return this.db
      .select()
      .from(secrets)
      .where(and(eq(secrets.ownerType, owner.type), eq(secrets.ownerId, owner.id)))
      .all();
  }
}
