import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "../../db/store.js";
import { openSqliteStore } from "../../db/store-sqlite.js";
import { createLogger } from "../../log.js";
import { ProcessEvents } from "../processes/process-events.js";
import { RESEND_QUESTION } from "../services/tool-gate.js";
import { Approvals } from "./approvals.js";

/**
 * What a resumed run's call finds when it asks again (durable runs): the approval its earlier attempt asked for,
 * decided or pending — but a re-send of a call left in flight by a crash asks anew each time, so no earlier answer
 * (the policy's, or a re-send's) approves sending a write again. On the real store (SQLite).
 */
describe("approvals asked again by a resumed run", () => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  const call = { processId: 7, keyId: null, serviceId: "ledger", toolId: "pay", parameters: { amount: 1 } };
  const journaled = { ...call, call: { executionId: 3, index: 0 } };

  async function approvals(): Promise<Approvals> {
    store = openSqliteStore(mkdtempSync(join(tmpdir(), "cyrnel-approvals-resume-")), () => undefined);
    return new Approvals({
      store: store.approvals,
      logger: createLogger("silent"),
      timeoutMs: 60_000,
      maxPendingPerKey: 10,
      parametersLimitBytes: 1 << 20,
      events: new ProcessEvents(),
    });
  }

  /** The pending approvals of the process, once `count` of them are stored (a request inserts before it waits). */
  const pendingOnce = async (gate: Approvals, count = 1) => {
    await expect.poll(async () => (await pending(gate)).length).toBe(count);
    return pending(gate);
  };
  const pending = async (gate: Approvals) =>
    (await gate.list({ state: "pending", processId: 7, limit: 10 })).map((a) => a.id);

  it("waits again for the same pending approval, and passes once the policy's was approved", async () => {
    const gate = await approvals();
    const first = gate.request(journaled);
    first.catch(() => {});
    const [id] = await pendingOnce(gate);
    // The run is let go of (evicted, or its host stops): the call stops waiting, the approval stays pending.
    gate.releaseProcess(7);
    await expect(first).rejects.toMatchObject({ code: "call_canceled" });
    const again = gate.request(journaled);
    // Approving the first approval settles the call asked again (it waits for that one), and no other row is left.
    await gate.approve(id!, null, null);
    await again;
    expect(await pending(gate)).toEqual([]);
    // Asked a third time (resumed once more before the call was sent): the approval stands.
    await gate.request(journaled);
    expect(await pending(gate)).toEqual([]);
  });

  it("asks anew for every re-send of a call left in flight, whatever was approved before", async () => {
    const gate = await approvals();
    const asked = gate.request(journaled);
    const [policyAsk] = await pendingOnce(gate);
    await gate.approve(policyAsk!, null, null);
    await asked;
    // The call was sent and its host died: the resumed run asks whether to send it again — a new approval.
    const resend = gate.request({ ...journaled, question: RESEND_QUESTION });
    const [first] = await pendingOnce(gate);
    expect(first).not.toBe(policyAsk);
    expect((await gate.get(first!)).question).toBe(RESEND_QUESTION);
    await gate.approve(first!, null, null);
    await resend;
    // Sent again, and its host died again: asked again, not approved by the earlier answer.
    const resendAgain = gate.request({ ...journaled, question: RESEND_QUESTION });
    const [second] = await pendingOnce(gate);
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    await gate.deny(second!, null, "it went through");
    await expect(resendAgain).rejects.toMatchObject({ code: "approval_denied" });
  });
});
