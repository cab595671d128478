/**
 * The sweep that ends what nobody will (PostgreSQL): a run claimed by a host
 * whose lease is alive but that never ends it — the claim's answer was lost,
 * or the host gave up writing its end — stays `queued` or `running` forever
 * unless someone ends it. Every host's sweep ends such a run `timeout` once
 * it is 30 s past its `timeoutMs` (the executing host's own deadline and
 * retries come first).
 *
 * The run here is made overdue by hand: an `api` host (which runs nothing)
 * queues it, and the test marks it claimed by that live host five minutes
 * ago and deletes its job, as if the claim's host had lost track of it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseEnv, testDialect } from "./support/database.js";
import { startHost, type TestHost, tempDir } from "./support/host.js";
import { queryPostgres } from "./support/postgres.js";

describe.skipIf(testDialect() !== "postgres")("runs a live host claimed but never ended", () => {
  let host: TestHost;
  let databaseUrl: string;

  const query = <Row>(sql: string, params: unknown[] = []) => queryPostgres<Row>(databaseUrl, sql, params);

  beforeAll(async () => {
    databaseUrl = (await databaseEnv(tempDir())).CYRNEL_DATABASE_URL!;
    host = await startHost({ env: { CYRNEL_DATABASE_URL: databaseUrl, CYRNEL_ROLE: "api", CYRNEL_LEASE_MS: "3000" } });
  });
  afterAll(() => host?.stop());

  it("are ended `timeout` by the sweep, with a message that says why", async () => {
    const created = await host.api("POST", "/processes", { code: "cyrnel.output({ never: true });", timeoutMs: 1000 });
    expect(created.status, created.text).toBe(201);
    const { hostId } = (await host.api("GET", "/health")).body;
    await query(
      `UPDATE executions SET claimed_by = $1, claimed_at = now() - interval '5 minutes', enqueued_at = now()
       WHERE process_id = $2`,
      [hostId, created.body.id],
    );
    await query("DELETE FROM graphile_worker._private_jobs");

    await expect.poll(async () => (await host.api("GET", `/processes/${created.body.id}`)).body.state).toBe("idle");
    expect((await host.api("GET", `/processes/${created.body.id}`)).body).toMatchObject({
      exitState: "timeout",
      error: "timed out after 1000 ms; the host running it did not record its end",
    });
    expect(host.logs().some((entry) => /long past their timeout, ended/.test(String(entry.msg)))).toBe(true);
  });
});
