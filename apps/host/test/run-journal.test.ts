import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { queryDatabase, testDialect } from "./support/database.js";
import { restart, startHost, type TestHost } from "./support/host.js";

/**
 * Durable runs through the built host, the typescript-ivm sandbox and the openapi adapter, against a real local
 * ledger that counts what reaches it: a host SIGKILLed in the middle of a run resumes it from its journal (on
 * PostgreSQL a new host takes it through the queue once the dead host's lease runs out), calls the journal answers
 * never reach the ledger again, a call that was in flight is re-sent only when its tool is read-only or an operator
 * approves, and a resumed program that takes another path fails `nondeterministic replay` without sending anything.
 */

interface Ledger {
  url: string;
  definition: string;
  /** Requests per route and key: `POST /payments <key>`, `GET /items/<id>`. */
  count(route: string): number;
  /** Requests held (their answers wait for `release`), by route. */
  held(route: string): number;
  /** Answers the held requests; their routes are not held again. */
  release(): void;
  close(): Promise<void>;
}

async function startLedger(): Promise<Ledger> {
  const counts = new Map<string, number>();
  const held = new Map<string, ServerResponse[]>();
  /** Routes released once answer at once from then on (a resumed run's re-sent call is not held again). */
  const released = new Set<string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://ledger");
      const reply = (status: number, value: unknown) => {
        if (response.destroyed) return;
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(value));
      };
      const bump = (route: string) => counts.set(route, (counts.get(route) ?? 0) + 1);
      const hold = (route: string, answer: () => void) => {
        if (released.has(route)) return answer();
        const waiting = held.get(route) ?? [];
        held.set(route, waiting);
        waiting.push(response);
        response.once("release" as never, answer);
      };
      const item = /^\/items\/([^/]+)$/.exec(url.pathname);
      if (request.method === "GET" && item) {
        const id = decodeURIComponent(item[1] ?? "");
        const route = `GET /items/${id}`;
        bump(route);
        const answer = () => reply(200, { id, name: `item ${id}`, price: id.length * 10 });
        return url.searchParams.get("hold") === "true" ? hold(route, answer) : answer();
      }
      if (request.method === "POST" && url.pathname === "/payments") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { key: string; amount: number };
        const route = `POST /payments ${body.key}`;
        bump(route);
        const answer = () => reply(201, { key: body.key, amount: body.amount, receipt: `r-${body.key}` });
        return url.searchParams.get("hold") === "true" ? hold(route, answer) : answer();
      }
      reply(404, { error: "no such route" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const hold = { name: "hold", in: "query", required: false, schema: { type: "boolean" } };
  const definition = JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Ledger", version: "1.0.0" },
    servers: [{ url }],
    paths: {
      "/items/{id}": {
        get: {
          operationId: "getItem",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, hold],
          responses: {
            200: {
              description: "The item",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["id", "name", "price"],
                    properties: { id: { type: "string" }, name: { type: "string" }, price: { type: "integer" } },
                  },
                },
              },
            },
          },
        },
      },
      "/payments": {
        post: {
          operationId: "pay",
          parameters: [hold],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["key", "amount"],
                  properties: { key: { type: "string" }, amount: { type: "integer" } },
                },
              },
            },
          },
          responses: {
            201: {
              description: "Paid",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["key", "amount", "receipt"],
                    properties: { key: { type: "string" }, amount: { type: "integer" }, receipt: { type: "string" } },
                  },
                },
              },
            },
          },
        },
      },
    },
  });
  return {
    url,
    definition,
    count: (route) => counts.get(route) ?? 0,
    held: (route) => held.get(route)?.filter((response) => !response.destroyed && !response.writableEnded).length ?? 0,
    release: () => {
      for (const [route, responses] of held) {
        released.add(route);
        for (const response of responses.splice(0)) response.emit("release");
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const postgres = testDialect() === "postgres";
/** On PostgreSQL a SIGKILLed host's runs are re-queued once its lease runs out (short here). */
const env: Record<string, string> = postgres ? { CYRNEL_LEASE_MS: "5000" } : {};

let ledger: Ledger;
let host: TestHost;

beforeAll(async () => {
  ledger = await startLedger();
});
afterAll(async () => {
  await ledger?.close();
});
afterEach(async (context) => {
  if (context.task.result?.state === "fail" && host) console.log(host.output.slice(-80).join("\n"));
  await host?.kill();
});

async function startLedgerHost(extra: Record<string, string> = {}): Promise<void> {
  host = await startHost({ env: { ...env, ...extra } });
  const installed = await host.api("POST", "/services", {
    id: "ledger",
    adapter: "openapi",
    definition: ledger.definition,
  });
  expect(installed.status, installed.text).toBe(201);
  expect((await host.api("POST", "/services/ledger/enabled", { enabled: true })).status).toBe(200);
}

async function start(code: string): Promise<number> {
  const response = await host.api("POST", "/processes", { code, timeoutMs: 120_000 });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}

async function waitIdle(id: number): Promise<Record<string, any>> {
  await expect
    .poll(async () => (await host.api("GET", `/processes/${id}`)).body.state, { timeout: 60_000, interval: 200 })
    .toBe("idle");
  return (await host.api("GET", `/processes/${id}`)).body;
}

/** Kills the host once `route` has a request held at the ledger (the run is in the middle of that call). */
async function killDuring(route: string): Promise<void> {
  await expect.poll(() => ledger.held(route), { timeout: 60_000, interval: 50 }).toBeGreaterThan(0);
  await host.kill();
  ledger.release();
  host = await restart(host, { env });
}

describe("a run whose host is SIGKILLed", () => {
  it("resumes from its journal: answered calls are not sent again, an in-flight read is re-sent", async () => {
    await startLedgerHost();
    const key = `pay-${Date.now()}`;
    const id = await start(`
      const ledger = cyrnel.services.ledger.tools;
      const first = await ledger.getItem.invoke({ id: "apple" });
      const [paid, second] = await Promise.all([
        ledger.pay.invoke({ body: { key: "${key}", amount: first.price } }),
        ledger.getItem.invoke({ id: "pear" }),
      ]);
      const slow = await ledger.getItem.invoke({ id: "plum", hold: true });
      const after = await ledger.pay.invoke({ body: { key: "${key}-after", amount: slow.price } });
      cyrnel.output({ names: [first.name, second.name, slow.name], receipts: [paid.receipt, after.receipt] });
    `);
    await killDuring("GET /items/plum");
    const done = await waitIdle(id);
    expect(done, JSON.stringify(done)).toMatchObject({ exitState: "success", error: null });
    expect((await host.api("GET", `/processes/${id}/output`)).body).toEqual({
      names: ["item apple", "item pear", "item plum"],
      receipts: [`r-${key}`, `r-${key}-after`],
    });
    // Answered from the journal: each write once, the reads before the kill once; the read in flight twice.
    expect(ledger.count(`POST /payments ${key}`)).toBe(1);
    expect(ledger.count(`POST /payments ${key}-after`)).toBe(1);
    expect(ledger.count("GET /items/apple")).toBe(1);
    expect(ledger.count("GET /items/pear")).toBe(1);
    expect(ledger.count("GET /items/plum")).toBe(2);
    // The call in flight at the kill is on record, its outcome unknown; then its re-sent call.
    const calls = (await host.api("GET", `/calls?processId=${id}&limit=50`)).body.items as Record<string, any>[];
    expect(calls.filter((call) => call.outcome === "unknown").map((call) => call.toolId)).toEqual(["getItem"]);
    expect(await queryDatabase(host.dataDir, "SELECT attempts FROM executions WHERE process_id = ?", [id])).toEqual([
      { attempts: 2 },
    ]);
  });

  it("asks an operator before re-sending a write that was in flight; a denial fails only that call", async () => {
    await startLedgerHost();
    const key = `held-${Date.now()}`;
    const id = await start(`
      try {
        await cyrnel.services.ledger.tools.pay.invoke({ body: { key: "${key}", amount: 5 }, hold: true });
        cyrnel.output({ resent: true });
      } catch (error) {
        cyrnel.output({ resent: false, code: (error as { code?: string }).code });
      }
    `);
    await killDuring(`POST /payments ${key}`);
    let approval: Record<string, any> | undefined;
    await expect
      .poll(
        async () => {
          approval = (await host.api("GET", `/approvals?state=pending&processId=${id}`)).body.items[0];
          return approval !== undefined;
        },
        { timeout: 60_000, interval: 200 },
      )
      .toBe(true);
    expect(approval).toMatchObject({ serviceId: "ledger", toolId: "pay", callIndex: 0 });
    expect(approval!.question).toContain("in flight");
    expect((await host.api("GET", `/processes/${id}`)).body.state).toBe("suspended");
    expect(ledger.count(`POST /payments ${key}`)).toBe(1);
    const denied = await host.api("POST", `/approvals/${approval!.id}/deny`, { reason: "it went through" });
    expect(denied.status, denied.text).toBe(200);
    expect(await waitIdle(id)).toMatchObject({ exitState: "success" });
    expect((await host.api("GET", `/processes/${id}/output`)).body).toEqual({ resent: false, code: "approval_denied" });
    expect(ledger.count(`POST /payments ${key}`)).toBe(1);
  });

  it("keeps a pending approval across the restart: the resumed run waits for it and goes on once approved", async () => {
    await startLedgerHost();
    expect(
      (
        await host.api("PUT", "/services/ledger/policy", {
          rules: [{ tools: "pay", action: "ask" }],
        })
      ).status,
    ).toBe(200);
    const key = `ask-${Date.now()}`;
    const id = await start(`
      const item = await cyrnel.services.ledger.tools.getItem.invoke({ id: "fig" });
      const paid = await cyrnel.services.ledger.tools.pay.invoke({ body: { key: "${key}", amount: item.price } });
      cyrnel.output({ receipt: paid.receipt });
    `);
    let approval: Record<string, any> | undefined;
    const pending = async () => {
      approval = (await host.api("GET", `/approvals?state=pending&processId=${id}`)).body.items[0];
      return approval?.id;
    };
    await expect.poll(pending, { timeout: 60_000, interval: 200 }).toBeDefined();
    const asked = approval!.id;
    await host.kill();
    host = await restart(host, { env });
    // The same approval, still pending, and the resumed run waits for it again.
    await expect
      .poll(async () => (await host.api("GET", `/processes/${id}`)).body.state, { timeout: 60_000 })
      .toBe("suspended");
    expect(await pending()).toBe(asked);
    expect((await host.api("POST", `/approvals/${asked}/approve`, {})).status).toBe(200);
    expect(await waitIdle(id)).toMatchObject({ exitState: "success" });
    expect((await host.api("GET", `/processes/${id}/output`)).body).toEqual({ receipt: `r-${key}` });
    expect(ledger.count(`POST /payments ${key}`)).toBe(1);
    expect(ledger.count("GET /items/fig")).toBe(1);
  });

  it("gives the resumed program the clock readings, random numbers, crypto's random bytes and timer order it had", async () => {
    await startLedgerHost();
    const id = await start(`
      const stamp = [Date.now(), Math.random().toString(36).slice(2), crypto.randomUUID(), new Date().toISOString()].join(":");
      const order: string[] = [];
      await Promise.all([
        new Promise((resolve) => setTimeout(() => resolve(order.push("timer")), 5)),
        cyrnel.services.ledger.tools.getItem.invoke({ id: "melon" }).then(() => order.push("call")),
      ]);
      const paid = await cyrnel.services.ledger.tools.pay.invoke({ body: { key: "rand-" + stamp, amount: 3 } });
      await cyrnel.services.ledger.tools.getItem.invoke({ id: "lime", hold: true });
      cyrnel.output({ stamp, order, receipt: paid.receipt, late: Math.random() < 2 });
    `);
    await killDuring("GET /items/lime");
    const done = await waitIdle(id);
    expect(done, JSON.stringify(done)).toMatchObject({ exitState: "success", error: null });
    const output = (await host.api("GET", `/processes/${id}/output`)).body;
    // The key the first attempt sent is the one the resumed program computed again: answered from the journal.
    expect(output.receipt).toBe(`r-rand-${output.stamp}`);
    expect(ledger.count(`POST /payments rand-${output.stamp}`)).toBe(1);
    expect(ledger.count("GET /items/melon")).toBe(1);
    expect(ledger.count("GET /items/lime")).toBe(2);
    const [journal] = await queryDatabase<{ n: number }>(
      host.dataDir,
      "SELECT count(*) AS n FROM run_journal WHERE kind = 'replay'",
    );
    expect(Number(journal?.n)).toBeGreaterThan(0);
  });

  it("fails a resumed program that takes another path, naming the call, and sends nothing", async () => {
    await startLedgerHost();
    const key = `path-${Date.now()}`;
    // What the program sees of the services is read when each attempt starts: a service enabled meanwhile changes
    // the parameters of its first call on replay.
    const id = await start(`
      const seen = Object.keys(cyrnel.services).sort().join(",");
      await cyrnel.services.ledger.tools.pay.invoke({ body: { key: "${key}-" + seen, amount: 1 } });
      await cyrnel.services.ledger.tools.getItem.invoke({ id: "kiwi", hold: true });
      await cyrnel.services.ledger.tools.pay.invoke({ body: { key: "${key}-last", amount: 2 } });
    `);
    await expect.poll(() => ledger.held("GET /items/kiwi"), { timeout: 60_000, interval: 50 }).toBeGreaterThan(0);
    const second = await host.api("POST", "/services", {
      id: "other",
      adapter: "openapi",
      definition: ledger.definition,
    });
    expect(second.status, second.text).toBe(201);
    expect((await host.api("POST", "/services/other/enabled", { enabled: true })).status).toBe(200);
    await killDuring("GET /items/kiwi");
    const done = await waitIdle(id);
    expect(done.exitState).toBe("failed");
    expect(done.error).toContain("nondeterministic replay: call #1 of the resumed run called ledger.pay with other");
    expect(ledger.count(`POST /payments ${key}-ledger`)).toBe(1);
    expect(ledger.count(`POST /payments ${key}-ledger,other`)).toBe(0);
    expect(ledger.count("GET /items/kiwi")).toBe(1);
    expect(ledger.count(`POST /payments ${key}-last`)).toBe(0);
  });

  it("is not resumed once its journal outgrew CYRNEL_JOURNAL_LIMIT_BYTES, and says so", async () => {
    await startLedgerHost({ CYRNEL_JOURNAL_LIMIT_BYTES: "400" });
    const id = await start(`
      for (const id of ["a", "b", "c", "d", "e"]) await cyrnel.services.ledger.tools.getItem.invoke({ id });
      await cyrnel.services.ledger.tools.getItem.invoke({ id: "grape", hold: true });
    `);
    await expect.poll(() => ledger.held("GET /items/grape"), { timeout: 60_000, interval: 50 }).toBeGreaterThan(0);
    const [run] = await queryDatabase<{ not_durable: string | null }>(
      host.dataDir,
      "SELECT not_durable FROM executions WHERE process_id = ?",
      [id],
    );
    expect(run?.not_durable).toContain("CYRNEL_JOURNAL_LIMIT_BYTES");
    await host.kill();
    ledger.release();
    host = await restart(host, { env });
    const done = await waitIdle(id);
    expect(done.exitState).toBe("failed");
    expect(done.error).toMatch(postgres ? /interrupted: worker lost/ : /not durable/);
    expect(ledger.count("GET /items/grape")).toBe(1);
  });
});

describe("a run that waits for an approval", () => {
  const pendingOf = async (id: number) =>
    (await host.api("GET", `/approvals?state=pending&processId=${id}`)).body.items as Record<string, any>[];
  const liveInSandbox = async () => (await host.api("GET", "/stats")).body.capacity?.live;

  it("holds no sandbox after CYRNEL_SUSPEND_EVICT_MS, outlives a restart, and resumes once approved", async () => {
    const evictEnv = { CYRNEL_SUSPEND_EVICT_MS: "300" };
    await startLedgerHost(evictEnv);
    // Room for 2 runs and 2 waiting, for 8: they can all wait only if evicted runs free their room, and resuming
    // them all at once must wait for room rather than be refused.
    const room = await host.api("PATCH", "/modules/typescript-ivm/config", { maxExecutions: 2, queueSize: 2 });
    expect(room.status, room.text).toBe(200);
    expect(
      (await host.api("PUT", "/services/ledger/policy", { rules: [{ tools: "pay", action: "ask" }] })).status,
    ).toBe(200);
    const key = `evict-${Date.now()}`;
    const ids: number[] = [];
    for (let n = 0; n < 8; n++) {
      const code = `
          const item = await cyrnel.services.ledger.tools.getItem.invoke({ id: "nut${n}" });
          const paid = await cyrnel.services.ledger.tools.pay.invoke({ body: { key: "${key}-${n}", amount: item.price } });
          cyrnel.output({ receipt: paid.receipt, at: new Date(Date.now()).getTime() > 0 });
        `;
      // A full sandbox answers 429 at_capacity (recording nothing): the submission is tried again until a run was
      // evicted. Asking /stats first is no substitute: on PostgreSQL a run submitted just before may be claimed
      // between that answer and this submission.
      let submitted: { status: number; text: string; body: any } | undefined;
      await expect
        .poll(
          async () => {
            submitted = await host.api("POST", "/processes", { code, timeoutMs: 120_000 });
            return submitted.status;
          },
          { timeout: 60_000, interval: 200 },
        )
        .not.toBe(429);
      expect(submitted?.status, submitted?.text).toBe(201);
      ids.push(submitted?.body.id);
    }
    for (const id of ids) await expect.poll(async () => (await pendingOf(id)).length, { timeout: 60_000 }).toBe(1);
    // Evicted: every process still suspended, no execution in the sandbox.
    await expect.poll(liveInSandbox, { timeout: 30_000, interval: 200 }).toBe(0);
    const approvals = await Promise.all(ids.map(async (id) => (await pendingOf(id))[0]!.id as number));
    for (const [n, id] of ids.entries()) {
      expect((await host.api("GET", `/processes/${id}`)).body).toMatchObject({
        state: "suspended",
        pendingApprovalIds: [approvals[n]],
      });
    }

    await host.kill();
    host = await restart(host, { env: { ...env, ...evictEnv } });
    // Nothing was resumed for them: they wait as rows.
    await expect.poll(liveInSandbox, { timeout: 30_000, interval: 200 }).toBe(0);
    for (const id of ids) {
      await expect
        .poll(async () => (await host.api("GET", `/processes/${id}`)).body.state, { timeout: 30_000 })
        .toBe("suspended");
      expect((await pendingOf(id)).map((approval) => approval.id)).toHaveLength(1);
    }
    const decided = await host.api("POST", "/approvals/decisions", { ids: approvals, decision: "approve" });
    expect(decided.status, decided.text).toBe(200);
    for (const [n, id] of ids.entries()) {
      const done = await waitIdle(id);
      expect(done, JSON.stringify(done)).toMatchObject({ exitState: "success" });
      expect((await host.api("GET", `/processes/${id}/output`)).body).toEqual({ receipt: `r-${key}-${n}`, at: true });
      expect(ledger.count(`POST /payments ${key}-${n}`)).toBe(1);
      expect(ledger.count(`GET /items/nut${n}`)).toBe(1);
    }
  });

  it("is killed while evicted: canceled at once, its approval expired, nothing sent", async () => {
    await startLedgerHost({ CYRNEL_SUSPEND_EVICT_MS: "200" });
    expect(
      (await host.api("PUT", "/services/ledger/policy", { rules: [{ tools: "pay", action: "ask" }] })).status,
    ).toBe(200);
    const key = `killed-${Date.now()}`;
    const id = await start(`await cyrnel.services.ledger.tools.pay.invoke({ body: { key: "${key}", amount: 1 } });`);
    await expect.poll(async () => (await pendingOf(id)).length, { timeout: 60_000 }).toBe(1);
    const [approval] = await pendingOf(id);
    await expect.poll(liveInSandbox, { timeout: 30_000, interval: 200 }).toBe(0);
    const killed = await host.api("POST", `/processes/${id}/signals/kill`);
    expect(killed.status, killed.text).toBe(200);
    expect(await waitIdle(id)).toMatchObject({ exitState: "canceled" });
    await expect
      .poll(async () => (await host.api("GET", `/approvals/${approval!.id}`)).body.state, { timeout: 30_000 })
      .toBe("expired");
    expect(ledger.count(`POST /payments ${key}`)).toBe(0);
  });

  it("gets approval_expired after its service's own approval timeout, evicted or not", async () => {
    await startLedgerHost({ CYRNEL_SUSPEND_EVICT_MS: "200" });
    const policy = await host.api("PUT", "/services/ledger/policy", {
      rules: [{ tools: "pay", action: "ask" }],
      approvalTimeoutMs: 3_000,
    });
    expect(policy.status, policy.text).toBe(200);
    expect(policy.body.approvalTimeoutMs).toBe(3_000);
    const key = `expire-${Date.now()}`;
    const id = await start(`
      try {
        await cyrnel.services.ledger.tools.pay.invoke({ body: { key: "${key}", amount: 1 } });
        cyrnel.output({ paid: true });
      } catch (error) {
        cyrnel.output({ paid: false, code: (error as { code?: string }).code });
      }
    `);
    const [approval] = await (async () => {
      await expect.poll(async () => (await pendingOf(id)).length, { timeout: 60_000 }).toBe(1);
      return pendingOf(id);
    })();
    expect(Date.parse(approval!.expiresAt) - Date.parse(approval!.createdAt)).toBe(3_000);
    expect(await waitIdle(id)).toMatchObject({ exitState: "success" });
    expect((await host.api("GET", `/processes/${id}/output`)).body).toEqual({ paid: false, code: "approval_expired" });
    expect((await host.api("GET", `/approvals/${approval!.id}`)).body).toMatchObject({ state: "expired" });
    expect(ledger.count(`POST /payments ${key}`)).toBe(0);
  });
});

describe("a run that sleeps on a long timer", () => {
  const liveInSandbox = async () => (await host.api("GET", "/stats")).body.capacity?.live;
  const runRow = async (id: number) =>
    (
      await queryDatabase<{ wake_at: string | null; attempts: number }>(
        host.dataDir,
        "SELECT wake_at, attempts FROM executions WHERE process_id = ?",
        [id],
      )
    )[0];
  // PostgreSQL: the host that let the run go nudges the workers when it is due; a host killed meanwhile cannot,
  // and then the workers' poll takes it (short here).
  const sleepEnv: Record<string, string> = {
    CYRNEL_SUSPEND_EVICT_MS: "500",
    ...(postgres && { CYRNEL_QUEUE_POLL_MS: "1000" }),
  };
  /** Reads an item, sleeps `ms`, then pays: what it sent before the sleep must not be sent again after it. */
  const sleeper = (key: string, ms: number) => `
    const item = await cyrnel.services.ledger.tools.getItem.invoke({ id: "bed-${key}" });
    const before = Date.now();
    console.log("sleeping");
    await new Promise((resolve) => setTimeout(resolve, ${ms}));
    const paid = await cyrnel.services.ledger.tools.pay.invoke({ body: { key: "${key}", amount: item.price } });
    console.log("woke");
    cyrnel.output({ receipt: paid.receipt, slept: Date.now() - before });
  `;

  /** The run is let go of while it sleeps: its row says until when, no sandbox holds it, its process runs on. */
  async function asleep(id: number): Promise<number> {
    await expect.poll(async () => (await runRow(id))?.wake_at ?? null, { timeout: 60_000 }).not.toBeNull();
    await expect.poll(liveInSandbox, { timeout: 30_000, interval: 200 }).toBe(0);
    expect((await host.api("GET", `/processes/${id}`)).body.state).toBe("running");
    return Date.parse((await runRow(id))?.wake_at ?? "");
  }

  it("holds no sandbox while it sleeps, outlives a restart, and wakes when due, sending nothing twice", async () => {
    await startLedgerHost(sleepEnv);
    const key = `sleep-${Date.now()}`;
    const id = await start(sleeper(key, 12_000));
    const wakeAt = await asleep(id);
    expect(ledger.count(`GET /items/bed-${key}`)).toBe(1);

    await host.kill();
    host = await restart(host, { env: { ...env, ...sleepEnv } });
    const done = await waitIdle(id);
    expect(done, JSON.stringify(done)).toMatchObject({ exitState: "success" });
    // Not before it was due; the program's clock says it slept its whole delay.
    expect(Date.parse(done.finishedAt)).toBeGreaterThanOrEqual(wakeAt);
    const output = (await host.api("GET", `/processes/${id}/output`)).body;
    expect(output.receipt).toBe(`r-${key}`);
    expect(output.slept).toBeGreaterThanOrEqual(12_000);
    expect((await host.api("GET", `/processes/${id}/stdout`)).text).toBe("sleeping\nwoke\n");
    expect(ledger.count(`GET /items/bed-${key}`)).toBe(1);
    expect(ledger.count(`POST /payments ${key}`)).toBe(1);
    expect(await runRow(id)).toMatchObject({ wake_at: null });
    expect((await runRow(id))?.attempts).toBeGreaterThanOrEqual(2);
  });

  it("wakes on the host that let it go, without a restart", async () => {
    // PostgreSQL: no poll of the queue would find it in time; the nudge of the host that let it go does.
    await startLedgerHost({ ...sleepEnv, ...(postgres && { CYRNEL_QUEUE_POLL_MS: "600000" }) });
    const key = `sleep-here-${Date.now()}`;
    const id = await start(sleeper(key, 3_000));
    const wakeAt = await asleep(id);
    const done = await waitIdle(id);
    expect(done, JSON.stringify(done)).toMatchObject({ exitState: "success" });
    expect(Date.parse(done.finishedAt)).toBeGreaterThanOrEqual(wakeAt);
    expect((await host.api("GET", `/processes/${id}/output`)).body.receipt).toBe(`r-${key}`);
    expect(ledger.count(`GET /items/bed-${key}`)).toBe(1);
    expect(ledger.count(`POST /payments ${key}`)).toBe(1);
  });

  it("is killed while asleep: canceled at once, and nothing is sent when it would have woken", async () => {
    await startLedgerHost(sleepEnv);
    const key = `sleep-killed-${Date.now()}`;
    const id = await start(sleeper(key, 3_000));
    const wakeAt = await asleep(id);
    const killed = await host.api("POST", `/processes/${id}/signals/kill`);
    expect(killed.status, killed.text).toBe(200);
    expect(await waitIdle(id)).toMatchObject({ exitState: "canceled" });
    // Past its wake-up, and a poll of the queue (PostgreSQL) later: it stayed canceled, nothing was sent.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, wakeAt - Date.now()) + 4_000));
    expect((await host.api("GET", `/processes/${id}`)).body).toMatchObject({ state: "idle", exitState: "canceled" });
    expect(ledger.count(`POST /payments ${key}`)).toBe(0);
    expect(await liveInSandbox()).toBe(0);
  });

  it("keeps its sandbox when its deadline comes before its wake-up, and times out there", async () => {
    await startLedgerHost(sleepEnv);
    const key = `sleep-deadline-${Date.now()}`;
    const response = await host.api("POST", "/processes", { code: sleeper(key, 600_000), timeoutMs: 3_000 });
    expect(response.status, response.text).toBe(201);
    const id = response.body.id as number;
    expect(await waitIdle(id)).toMatchObject({ exitState: "timeout" });
    expect(await runRow(id)).toMatchObject({ wake_at: null, attempts: 1 });
    expect(ledger.count(`POST /payments ${key}`)).toBe(0);
  });
});
