/**
 * The connections store, on either dialect (see dialect.ts). A row and the
 * sealed values that belong to it (a connection's tokens, a service's client
 * secret) are written and deleted in one transaction. Settings changes are
 * published as a change of the service's tools: whether its calls need a
 * connection is part of what the tool gate keeps per service revision.
 */
import { and, asc, eq, inArray, lt } from "drizzle-orm";
import type {
  ConnectionRequestRow,
  ConnectionRow,
  ConnectionStore,
  ServiceOAuthRow,
} from "../../domain/connections/connection-store.js";
import type { SealedValue, SecretOwner } from "../../domain/secrets/secret-store.js";
import type { SharedDb, SqlDialect } from "../dialect.js";

export class SqlConnectionStore implements ConnectionStore {
  constructor(private readonly sql: SqlDialect) {}

  async settings(serviceId: string): Promise<ServiceOAuthRow | undefined> {
    const { serviceOAuth } = this.sql.tables;
    const [row] = await this.sql.db.select().from(serviceOAuth).where(eq(serviceOAuth.serviceId, serviceId));
    return row;
  }

  async putSettings(row: ServiceOAuthRow, clientSecret: readonly SealedValue[] | null | undefined): Promise<void> {
    const { serviceOAuth } = this.sql.tables;
    const { serviceId, ...values } = row;
    await this.sql.transaction(async (tx) => {
      await tx.insert(serviceOAuth).values(row).onConflictDoUpdate({ target: serviceOAuth.serviceId, set: values });
      if (clientSecret !== undefined) {
        await this.replaceSecrets(tx, { type: "service-oauth", id: serviceId }, clientSecret ?? []);
      }
      await this.sql.publish(tx, { kind: "tools", id: serviceId, action: "updated" });
    });
  }

  async deleteSettings(serviceId: string): Promise<void> {
    const { serviceOAuth, connectionRequests } = this.sql.tables;
    await this.sql.transaction(async (tx) => {
      await this.dropConnections(tx, serviceId);
      await tx.delete(connectionRequests).where(eq(connectionRequests.serviceId, serviceId));
      await this.replaceSecrets(tx, { type: "service-oauth", id: serviceId }, []);
      await tx.delete(serviceOAuth).where(eq(serviceOAuth.serviceId, serviceId));
      await this.sql.publish(tx, { kind: "tools", id: serviceId, action: "updated" });
    });
  }

  async deleteConnections(serviceId: string): Promise<void> {
    await this.sql.transaction((tx) => this.dropConnections(tx, serviceId));
  }

  async addRequest(row: ConnectionRequestRow): Promise<void> {
    await this.sql.db.insert(this.sql.tables.connectionRequests).values(row);
  }

  async takeRequest(stateHash: string): Promise<ConnectionRequestRow | undefined> {
    const { connectionRequests } = this.sql.tables;
    // One statement: of two callbacks with the same state (a replay, two hosts), only one gets the row.
    const [row] = await this.sql.db
      .delete(connectionRequests)
      .where(eq(connectionRequests.stateHash, stateHash))
      .returning();
    return row;
  }

  async hasRequest(stateHash: string): Promise<boolean> {
    const { connectionRequests } = this.sql.tables;
    const rows = await this.sql.db
      .select({ stateHash: connectionRequests.stateHash })
      .from(connectionRequests)
      .where(eq(connectionRequests.stateHash, stateHash));
    return rows.length > 0;
  }

  async pruneRequests(now: string): Promise<void> {
    const { connectionRequests } = this.sql.tables;
    await this.sql.db.delete(connectionRequests).where(lt(connectionRequests.expiresAt, now));
  }

  async connection(serviceId: string, owner: string): Promise<ConnectionRow | undefined> {
    const { connections } = this.sql.tables;
    const [row] = await this.sql.db
      .select()
      .from(connections)
      .where(and(eq(connections.serviceId, serviceId), eq(connections.owner, owner)));
    return row;
  }

  async connectionById(serviceId: string, id: string): Promise<ConnectionRow | undefined> {
    const { connections } = this.sql.tables;
    const [row] = await this.sql.db
      .select()
      .from(connections)
      .where(and(eq(connections.serviceId, serviceId), eq(connections.id, id)));
    return row;
  }

  list(serviceId: string, owner?: string): Promise<ConnectionRow[]> {
    const { connections } = this.sql.tables;
    const ofService = eq(connections.serviceId, serviceId);
    return this.sql.db
      .select()
      .from(connections)
      .where(owner === undefined ? ofService : and(ofService, eq(connections.owner, owner)))
      .orderBy(asc(connections.createdAt), asc(connections.id));
  }

  async replaceConnection(row: ConnectionRow, tokens: readonly SealedValue[]): Promise<void> {
    const { connections } = this.sql.tables;
    await this.sql.transaction(
      async (tx) => {
        const previous = await tx
          .delete(connections)
          .where(and(eq(connections.serviceId, row.serviceId), eq(connections.owner, row.owner)))
          .returning({ id: connections.id });
        for (const { id } of previous) await this.replaceSecrets(tx, { type: "connection", id }, []);
        await tx.insert(connections).values(row);
        await this.replaceSecrets(tx, { type: "connection", id: row.id }, tokens);
      },
      { lock: `cyrnel.connection.${row.serviceId}.${row.owner}` },
    );
  }

  async updateTokens(
    id: string,
    values: Pick<ConnectionRow, "scopes" | "expiresAt" | "refreshable" | "refreshedAt">,
    tokens: readonly SealedValue[],
  ): Promise<boolean> {
    const { connections } = this.sql.tables;
    return this.sql.transaction(async (tx) => {
      const updated = await tx
        .update(connections)
        .set(values)
        .where(eq(connections.id, id))
        .returning({ id: connections.id });
      if (updated.length === 0) return false;
      await this.replaceSecrets(tx, { type: "connection", id }, tokens);
      return true;
    });
  }

  async deleteConnection(serviceId: string, id: string): Promise<boolean> {
    const { connections } = this.sql.tables;
    return this.sql.transaction(async (tx) => {
      const deleted = await tx
        .delete(connections)
        .where(and(eq(connections.serviceId, serviceId), eq(connections.id, id)))
        .returning({ id: connections.id });
      if (deleted.length === 0) return false;
      await this.replaceSecrets(tx, { type: "connection", id }, []);
      return true;
    });
  }

  private async dropConnections(tx: SharedDb, serviceId: string): Promise<void> {
    const { connections, secrets } = this.sql.tables;
    const dropped = await tx
      .delete(connections)
      .where(eq(connections.serviceId, serviceId))
      .returning({ id: connections.id });
    if (dropped.length === 0) return;
    await tx.delete(secrets).where(
      and(
        eq(secrets.ownerType, "connection"),
        inArray(
          secrets.ownerId,
          dropped.map(({ id }) => id),
        ),
      ),
    );
  }

  private async replaceSecrets(tx: SharedDb, owner: SecretOwner, values: readonly SealedValue[]): Promise<void> {
    const { secrets } = this.sql.tables;
    await tx.delete(secrets).where(and(eq(secrets.ownerType, owner.type), eq(secrets.ownerId, owner.id)));
    if (values.length === 0) return;
    const updatedAt = new Date().toISOString();
    await tx
      .insert(secrets)
      .values(values.map((value) => ({ ownerType: owner.type, ownerId: owner.id, ...value, updatedAt })));
  }
}
