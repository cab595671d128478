import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { usePostgres } from "../../../test/support/cluster-postgres.js";
import type { OAuthSubjectRow } from "../../domain/governance/oauth-subject-store.js";
import type { Store } from "../store.js";
import { openPgStore } from "../store-pg.js";
import { openSqliteStore } from "../store-sqlite.js";

/**
 * The OAuth subjects store (oauth-subject-store.ts) on both dialects: its one conditional upsert keeps the grants
 * of the token that expires last, so hosts sharing a database agree whatever order their writes land in.
 */
const postgres = usePostgres();

const dialects: [string, () => Promise<Store>][] = [
  ["SQLite", async () => openSqliteStore(mkdtempSync(join(tmpdir(), "cyrnel-oauth-")), () => undefined)],
  ["PostgreSQL", async () => openPgStore(await postgres.server.createDatabase(), () => undefined, 4)],
];

const row = (expiresAt: string, extra: Partial<OAuthSubjectRow> = {}): OAuthSubjectRow => ({
  id: "oauth:alice",
  role: "agent",
  services: null,
  expiresAt,
  seenAt: "2026-01-01T00:00:00.000Z",
  ...extra,
});

describe.each(dialects)("the OAuth subjects store on %s", (_name, open) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it("keeps the grants of the token that expires last, whatever order they are written in", async () => {
    store = await open();
    const subjects = store.oauthSubjects;
    expect(await subjects.get("oauth:alice")).toBeUndefined();
    await subjects.remember(row("2026-01-01T02:00:00.000Z", { services: ["weather"] }));
    expect(await subjects.get("oauth:alice")).toEqual(row("2026-01-01T02:00:00.000Z", { services: ["weather"] }));
    // An older token seen later (on another host, or a slow request) changes nothing.
    await subjects.remember(row("2026-01-01T01:00:00.000Z", { role: "admin" }));
    expect(await subjects.get("oauth:alice")).toMatchObject({ role: "agent", services: ["weather"] });
    // A newer one replaces the grants, narrower or wider.
    await subjects.remember(row("2026-01-01T03:00:00.000Z", { services: [] }));
    expect(await subjects.get("oauth:alice")).toMatchObject({ services: [], expiresAt: "2026-01-01T03:00:00.000Z" });
  });
});
