import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GateApi, installGate, startGateApi } from "./support/gate-api.js";
import { startHost, type TestHost } from "./support/host.js";

/**
 * Ending a run cancels its calls, and no key can pile up work: the tool
 * calls of a run that ends (killed, or finished without awaiting them) are
 * aborted at their adapter — the upstream sees its connection close — and
 * each key has caps on in-flight calls, active processes and requests
 * (`429 rate_limited` with `Retry-After`). A direct invoke in flight when the
 * host stops is answered `503 shutting_down`.
 *
 * The upstream is a gate that answers only when the test opens it, and the
 * invoke timeout is ten minutes: a call that ends here was ended by the host.
 */
const API_KEY = "key-limits-bootstrap";
const IN_FLIGHT = 3;
const PROCESSES = 2;
const BURST = 20;

let gate: GateApi;
let host: TestHost;

beforeAll(async () => {
  gate = await startGateApi();
  host = await startHost({
    env: {
      CYRNEL_API_KEY: API_KEY,
      CYRNEL_INVOKE_TIMEOUT_MS: "600000",
      CYRNEL_KEY_INFLIGHT_CALLS: String(IN_FLIGHT),
      CYRNEL_KEY_PROCESSES: String(PROCESSES),
      CYRNEL_KEY_REQUESTS_BURST: String(BURST),
      CYRNEL_KEY_REQUESTS_PER_SECOND: "1",
    },
  });
  await installGate(host, gate);
});
afterAll(async () => {
  await host?.stop();
  await gate?.close();
});

async function agentKey(name: string): Promise<string> {
  const created = await host.api("POST", "/keys", { name, role: "agent" });
  expect(created.status, created.text).toBe(201);
  return created.body.key as string;
}

const asAgent = (key: string) => ({ authorization: `Bearer ${key}` });

describe("ending a run cancels its tool calls", () => {
  it("a kill aborts the calls still at the upstream, and records them canceled", async () => {
    const before = gate.waiting();
    const created = await host.api("POST", "/processes", {
      code: `await Promise.all([1, 2, 3].map(() => cyrnel.services.gate.tools.pass.invoke({ name: "never" })));`,
      timeoutMs: 600_000,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as number;
    await expect.poll(() => gate.waiting()).toBe(before + 3);

    const killed = await host.api("POST", `/processes/${id}/signals/kill`);
    expect(killed.status, killed.text).toBe(200);
    // The host closed the three requests; without the abort they would stay open for the ten-minute timeout.
    await expect.poll(() => gate.waiting()).toBe(before);
    await expect
      .poll(async () => (await host.api("GET", `/processes/${id}/calls`)).body.items.map((call: any) => call.outcome))
      .toEqual(["call_canceled", "call_canceled", "call_canceled"]);
  });

  it("a run that ends without awaiting its calls aborts them; a key's in-flight calls are capped", async () => {
    const program = `
      const refused: string[] = [];
      for (let i = 0; i < 5; i++) {
        cyrnel.services.gate.tools.pass.invoke({ name: "held" }).catch((error: { code: string }) => refused.push(error.code));
      }
      while (refused.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      cyrnel.output({ refused });
    `;
    const arrived = gate.arrived();
    for (const round of [1, 2]) {
      const done = await host.api("POST", "/processes", { code: program, block: true, timeoutMs: 600_000 });
      expect(done.status, done.text).toBe(201);
      expect(done.body.exitState, done.text).toBe("success");
      expect(done.body.output).toEqual({ refused: ["rate_limited", "rate_limited"] });
      // Exactly the cap reached the upstream, and the run's end let them go.
      expect(gate.arrived()).toBe(arrived + round * IN_FLIGHT);
      await expect.poll(() => gate.waiting()).toBe(0);
    }
  });
});

describe("per-key caps answer 429 with Retry-After", () => {
  it(`a stored key has at most ${PROCESSES} active processes; a kill gives a place back`, async () => {
    const key = await agentKey("processes-cap");
    const waiting = { code: "await new Promise(() => {});", timeoutMs: 600_000 };
    const ids: number[] = [];
    for (let i = 0; i < PROCESSES; i++) {
      const created = await host.api("POST", "/processes", waiting, asAgent(key));
      expect(created.status, created.text).toBe(201);
      ids.push(created.body.id as number);
    }
    const refused = await host.api("POST", "/processes", waiting, asAgent(key));
    expect(refused.status, refused.text).toBe(429);
    expect(refused.body.code).toBe("rate_limited");
    expect(refused.body.error).toContain("CYRNEL_KEY_PROCESSES");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another key is not held back by this one.
    const other = await host.api("POST", "/processes", { code: "cyrnel.output({ ok: 1 });", block: true });
    expect(other.status, other.text).toBe(201);

    expect((await host.api("POST", `/processes/${ids[0]}/signals/kill`, undefined, asAgent(key))).status).toBe(200);
    const again = await host.api("POST", "/processes", waiting, asAgent(key));
    expect(again.status, again.text).toBe(201);
    for (const id of [ids[1], again.body.id]) {
      expect((await host.api("POST", `/processes/${id}/signals/kill`, undefined, asAgent(key))).status).toBe(200);
    }
  });

  it(`a stored key may send ${BURST} requests at once, then its rate; others are not held back`, async () => {
    const key = await agentKey("request-rate");
    const answers = await Promise.all(
      Array.from({ length: BURST + 5 }, () => host.api("GET", "/services", undefined, asAgent(key))),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(BURST);
    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]?.body.code).toBe("rate_limited");
    expect(Number(limited[0]?.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another stored key, the bootstrap key and the public health check are not affected.
    const other = await agentKey("request-rate-other");
    expect((await host.api("GET", "/services", undefined, asAgent(other))).status).toBe(200);
    expect((await host.api("GET", "/services")).status).toBe(200);
    expect((await fetch(`${host.url}/health`)).status).toBe(200);
  });
});

describe("a host that stops", () => {
  it("answers a direct invoke in flight 503 shutting_down and closes its upstream request", async () => {
    const stopping = await startHost({ env: { CYRNEL_API_KEY: API_KEY, CYRNEL_INVOKE_TIMEOUT_MS: "600000" } });
    try {
      await installGate(stopping, gate);
      const before = gate.waiting();
      const invoke = stopping.api("POST", "/tools/gate/pass/invoke", { parameters: { name: "at-shutdown" } });
      await expect.poll(() => gate.waiting()).toBe(before + 1);
      const exited = stopping.stop();
      const answer = await invoke;
      expect(answer.status, answer.text).toBe(503);
      expect(answer.body.code).toBe("shutting_down");
      expect(await exited).toBe(0);
      await expect.poll(() => gate.waiting()).toBe(before);
    } finally {
      await stopping.kill();
    }
  });
});
