/** The PostgreSQL rows of secrets (ciphertext only: sealing is SecretStore's). */
import { and, eq, ne, sql } from "drizzle-orm";
import type { PgChanges } from "../../db/changes-pg.js";
import type { PgDb } from "../../db/client-pg.js";
import { secrets } from "../../db/schema-pg.js";
import type { Sealed } from "./secret-box.js";
import type { SealedValue, SecretOwner, SecretRow, SecretRowStore } from "./secret-store.js";

const ofOwner = (owner: SecretOwner) => and(eq(secrets.ownerType, owner.type), eq(secrets.ownerId, owner.id));

export class PgSecretRowStore implements SecretRowStore {
  constructor(
    private readonly db: PgDb,
    /** A replace tells the other hosts its owner changed (`service` or `module`), in its transaction. */
    private readonly changes: PgChanges,
  ) {}

  rows(owner: SecretOwner): Promise<SecretRow[]> {
    return this.db.select().from(secrets).where(ofOwner(owner));
  }

  async replace(owner: SecretOwner, values: readonly SealedValue[]): Promise<void> {
    const updatedAt = new Date().toISOString();
    await this.db.transaction(async (tx) => {
      // Two replaces of one owner (two hosts) would each delete, then both insert: one at a time instead.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`cyrnel.secrets.${owner.type}.${owner.id}`}))`);
      await tx.delete(secrets).where(ofOwner(owner));
      if (values.length > 0) {
        await tx
          .insert(secrets)
          .values(values.map((value) => ({ ownerType: owner.type, ownerId: owner.id, ...value, updatedAt })));
      }
      await this.changes.publish(tx, { kind: owner.type, id: owner.id, action: "updated" });
    });
  }

  sealedWithOtherKeys(keyId: string): Promise<SecretRow[]> {
    return this.db.select().from(secrets).where(ne(secrets.keyId, keyId));
  }

  /** Publishes nothing: the value is the same under another key, so nothing another host holds changes. */
  async reseal(row: SecretRow, sealed: Sealed): Promise<boolean> {
    const updated = await this.db
      .update(secrets)
      .set({ ...sealed, updatedAt: new Date().toISOString() })
      .where(
        and(
          eq(secrets.ownerType, row.ownerType),
          eq(secrets.ownerId, row.ownerId),
          eq(secrets.name, row.name),
          eq(secrets.keyId, row.keyId),
          eq(secrets.ciphertext, row.ciphertext),
        ),
      )
      .returning({ name: secrets.name });
    return updated.length > 0;
  }
}
