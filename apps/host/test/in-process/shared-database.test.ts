/**
 * Hosts sharing one PostgreSQL database (what CYRNEL_DATABASE_URL allows): they start together (the migrations
 * run once, under the advisory lock), each sees the other's rows, and a uniqueness clash across hosts is the
 * same 409 as on one. Keeping their caches in step is not part of this yet (phase 2), so these only read what
 * the other wrote through the database. PostgreSQL only: SQLite's database is one host's file.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { databaseEnv, queryDatabase, testDialect } from "../support/database.js";
import { tempDir } from "../support/host.js";
import { type InProcessHost, startInProcess } from "../support/in-process.js";
import { enableRecorder, installRecorded } from "../support/recorder.js";

describe.skipIf(testDialect() !== "postgres")("hosts sharing one PostgreSQL database", () => {
  const hosts: InProcessHost[] = [];
  afterAll(async () => {
    for (const host of hosts) await host.stop();
  });

  it("start together on a new database: one migrates, both serve, each reads what the other wrote", async () => {
    const shared = tempDir();
    const env = await databaseEnv(shared);
    const [a, b] = await Promise.all(
      [tempDir(), tempDir()].map((dataDir) => startInProcess({ dataDir, modules: ["recorder", "echo-env"], env })),
    );
    hosts.push(a!, b!);
    const applied = await queryDatabase<{ n: string }>(
      shared,
      "select count(*) as n from drizzle.__drizzle_migrations",
    );
    // Every migration once, though two hosts started together.
    expect(Number(applied[0]!.n)).toBe(pgMigrationCount());

    await enableRecorder(a!);
    await installRecorded(a!, "sharedsvc", [{ id: "ping" }]);
    const seen = await b!.api("GET", "/services/sharedsvc");
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body).toMatchObject({ id: "sharedsvc", toolCount: 1, enabled: false });
    // The same id through the other host is the same conflict as on one host.
    await enableRecorder(b!);
    const again = await b!.api("POST", "/services", {
      id: "sharedsvc",
      adapter: "recorder",
      definition: JSON.stringify({ name: "again", tools: [{ id: "pong" }] }),
    });
    expect(again.status, again.text).toBe(409);

    expect((await a!.api("POST", "/modules/echo-env/enabled", { enabled: true })).status).toBe(200);
    const created = await a!.api("POST", "/processes", { code: "hello", block: true });
    expect(created.status, created.text).toBe(201);
    const read = await b!.api("GET", `/processes/${created.body.id}`);
    expect(read.body).toMatchObject({ id: created.body.id, state: "idle", exitState: "success" });
  });
});

/** How many migrations the PostgreSQL dialect has (drizzle's journal). */
function pgMigrationCount(): number {
  const journal = join(import.meta.dirname, "..", "..", "src", "db", "migrations-pg", "meta", "_journal.json");
  return (JSON.parse(readFileSync(journal, "utf8")) as { entries: unknown[] }).entries.length;
}
