/** The rows of secrets, on either dialect (ciphertext only: sealing is SecretStore's). */
import { and, eq, ne } from "drizzle-orm";
import type { Sealed } from "../../domain/secrets/secret-box.js";
import type { SealedValue, SecretOwner, SecretRow, SecretRowStore } from "../../domain/secrets/secret-store.js";
import type { SqlDialect } from "../dialect.js";

export class SqlSecretRowStore implements SecretRowStore {
  /** A replace tells the other hosts its owner changed (`service` or `module`), in its transaction. */
  constructor(private readonly sql: SqlDialect) {}

  private ofOwner(owner: SecretOwner) {
    const { secrets } = this.sql.tables;
    return and(eq(secrets.ownerType, owner.type), eq(secrets.ownerId, owner.id));
  }

  rows(owner: SecretOwner): Promise<SecretRow[]> {
    return this.sql.db.select().from(this.sql.tables.secrets).where(this.ofOwner(owner));
  }

  async replace(owner: SecretOwner, values: readonly SealedValue[]): Promise<void> {
    const { secrets } = this.sql.tables;
    const updatedAt = new Date().toISOString();
    // Two replaces of one owner (two hosts) would each delete, then both insert: one at a time instead.
    await this.sql.transaction(
      async (tx) => {
        await tx.delete(secrets).where(this.ofOwner(owner));
        if (values.length > 0) {
          await tx
            .insert(secrets)
            .values(values.map((value) => ({ ownerType: owner.type, ownerId: owner.id, ...value, updatedAt })));
        }
        // Tokens and client secrets are read from the database at each use: only settings are news to other hosts.
        if (owner.type === "service" || owner.type === "module") {
          await this.sql.publish(tx, { kind: owner.type, id: owner.id, action: "updated" });
        }
      },
      { lock: `cyrnel.secrets.${owner.type}.${owner.id}` },
    );
  }

  sealedWithOtherKeys(keyId: string): Promise<SecretRow[]> {
    const { secrets } = this.sql.tables;
    return this.sql.db.select().from(secrets).where(ne(secrets.keyId, keyId));
  }

  /** Publishes nothing: the value is the same under another key, so nothing another host holds changes. */
  async reseal(row: SecretRow, sealed: Sealed): Promise<boolean> {
    const { secrets } = this.sql.tables;
    const updated = await this.sql.db
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
