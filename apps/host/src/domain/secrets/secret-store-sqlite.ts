/** The SQLite rows of secrets (ciphertext only: sealing is SecretStore's). */
import { and, eq, ne } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { secrets } from "../../db/schema.js";
import type { Sealed } from "./secret-box.js";
import type { SealedValue, SecretOwner, SecretRow, SecretRowStore } from "./secret-store.js";

const ofOwner = (owner: SecretOwner) => and(eq(secrets.ownerType, owner.type), eq(secrets.ownerId, owner.id));

export class SqliteSecretRowStore implements SecretRowStore {
  constructor(private readonly db: Db) {}

  async rows(owner: SecretOwner): Promise<SecretRow[]> {
    return this.db.select().from(secrets).where(ofOwner(owner)).all();
  }

  async replace(owner: SecretOwner, values: readonly SealedValue[]): Promise<void> {
    const updatedAt = new Date().toISOString();
    this.db.transaction((tx) => {
      tx.delete(secrets).where(ofOwner(owner)).run();
      for (const value of values) {
        tx.insert(secrets)
          .values({ ownerType: owner.type, ownerId: owner.id, ...value, updatedAt })
          .run();
      }
    });
  }

  async sealedWithOtherKeys(keyId: string): Promise<SecretRow[]> {
    return this.db.select().from(secrets).where(ne(secrets.keyId, keyId)).all();
  }

  async reseal(row: SecretRow, sealed: Sealed): Promise<boolean> {
    const result = this.db
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
      .run();
    return result.changes > 0;
  }
}
