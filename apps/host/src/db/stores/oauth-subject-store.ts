/**
 * The OAuth subjects store, on either dialect (see dialect.ts): the grants
 * and expiry of each subject's latest token. The write is one upsert that
 * keeps the row of a token expiring later, so two hosts seeing two tokens
 * of one subject at once end with the later token's grants, whatever order
 * their writes land in.
 */
import { eq, placeholder, sql } from "drizzle-orm";
import type { OAuthSubjectRow, OAuthSubjectStore } from "../../domain/governance/oauth-subject-store.js";
import type { SqlDialect } from "../dialect.js";

export class SqlOAuthSubjectStore implements OAuthSubjectStore {
  private readonly byId;

  constructor(private readonly sql: SqlDialect) {
    const { oauthSubjects } = sql.tables;
    // Every tool call of a process started with a token reads its subject: prepared once.
    this.byId = sql.db
      .select()
      .from(oauthSubjects)
      .where(eq(oauthSubjects.id, placeholder("id")))
      .prepare("cyrnel_oauth_subject_by_id");
  }

  async get(id: string): Promise<OAuthSubjectRow | undefined> {
    return (await this.byId.execute({ id }))[0];
  }

  async remember(row: OAuthSubjectRow): Promise<void> {
    const { oauthSubjects } = this.sql.tables;
    // ISO-8601 timestamps of one format order as text on both dialects; `excluded` is both dialects' word for the
    // row that was to be inserted.
    await this.sql.db
      .insert(oauthSubjects)
      .values(row)
      .onConflictDoUpdate({
        target: oauthSubjects.id,
        set: {
          role: sql`excluded.role`,
          services: sql`excluded.services`,
          expiresAt: sql`excluded.expires_at`,
          seenAt: sql`excluded.seen_at`,
        },
        setWhere: sql`excluded.expires_at >= ${oauthSubjects.expiresAt}`,
      });
  }
}
