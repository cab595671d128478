import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InProcessHost, rebuild, startInProcess } from "../support/in-process.js";
import { enableRecorder, hookCalls, installRecorded, recorderDefinition } from "../support/recorder.js";

/**
 * Governance through an adapter that sets its own annotations (the `recorder` fixture), on the host built in
 * process: annotations checked at install, policies matching them, what a direct call records (an upstream status
 * included), and the retention of call records across a restart. The sandbox-facing half (approvals, suspension,
 * events) is in test/governance.test.ts, through the real binary.
 */
let host: InProcessHost;
let hookLog: string;

beforeAll(async () => {
  host = await startInProcess({ modules: ["recorder"] });
  hookLog = await enableRecorder(host);
  await installRecorded(
    host,
    "files",
    [
      { id: "readFile", annotations: { readOnly: true } },
      { id: "removeFile", annotations: { destructive: true, idempotent: true } },
      { id: "touchFile" },
      { id: "failing", behavior: "fail", annotations: { readOnly: true } },
    ],
    { enabled: true },
  );
});
afterAll(async () => {
  await host?.stop();
});

const invokes = () => hookCalls(hookLog).filter((call) => call.hook === "invoke").length;

describe("annotations from an adapter", () => {
  it("are stored as the adapter gave them; a tool without them claims nothing", async () => {
    const tools = (await host.api("GET", "/tools?serviceId=files")).body.items as Record<string, any>[];
    expect(Object.fromEntries(tools.map((tool) => [tool.id, tool.annotations]))).toEqual({
      readFile: { readOnly: true },
      removeFile: { destructive: true, idempotent: true },
      touchFile: {},
      failing: { readOnly: true },
    });
  });

  it.each([
    [{ readOnly: "yes" }, 'annotation "readOnly" must be a boolean'],
    [{ dangerous: true }, 'unknown annotation "dangerous"'],
    [[true], '"annotations" must be an object'],
  ])("refuses an install whose annotations are %j", async (annotations, message) => {
    const response = await host.api("POST", "/services", {
      id: "broken",
      adapter: "recorder",
      definition: recorderDefinition([{ id: "tool", annotations } as never]),
    });
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ code: "adapter_error" });
    expect(response.body.error).toContain(message);
  });
});

describe("policies over annotations", () => {
  it("match readOnly and destructive (an absent one counting as false), and deny before the adapter", async () => {
    const put = await host.api("PUT", "/services/files/policy", {
      default: "ask",
      rules: [
        { destructive: true, action: "deny" },
        { readOnly: true, action: "allow" },
        { readOnly: false, destructive: false, tools: "touch?ile", action: "allow" },
      ],
    });
    expect(put.status, put.text).toBe(200);
    const tools = (await host.api("GET", "/tools?serviceId=files")).body.items as Record<string, any>[];
    expect(Object.fromEntries(tools.map((tool) => [tool.id, tool.policy]))).toEqual({
      readFile: "allow",
      removeFile: "deny",
      touchFile: "allow",
      failing: "allow",
    });

    const before = invokes();
    const denied = await host.api("POST", "/tools/files/removeFile/invoke", { parameters: { path: "/a" } });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe("tool_denied");
    expect(invokes()).toBe(before);
    expect((await host.api("POST", "/tools/files/readFile/invoke", { parameters: {} })).status).toBe(200);
    expect(invokes()).toBe(before + 1);
  });
});

describe("call records", () => {
  it("record a direct call with no process, and the upstream status of a failed one", async () => {
    const failed = await host.api("POST", "/tools/files/failing/invoke", { parameters: { n: 1 } });
    expect(failed.status).toBe(502);
    const [call] = (await host.api("GET", "/calls?toolId=failing")).body.items;
    expect(call).toMatchObject({
      processId: null,
      keyId: null,
      serviceId: "files",
      toolId: "failing",
      outcome: "adapter_error",
      status: 418,
      parameters: { n: 1 },
    });
  });

  it("are kept CYRNEL_CALLS_RETENTION_DAYS days: older ones are deleted at start, and no id comes back", async () => {
    await host.api("POST", "/tools/files/readFile/invoke", { parameters: { age: "old" } });
    await host.api("POST", "/tools/files/readFile/invoke", { parameters: { age: "old too" } });
    const old = (await host.api("GET", "/calls?toolId=readFile&limit=2")).body.items.map((call: any) => call.id);
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 60 * 60 * 1000).toISOString();
    for (const id of old)
      await host.host.store.query("update calls set started_at = ? where id = ?", [eightDaysAgo, id]);

    host = await rebuild(host, { env: { CYRNEL_CALLS_RETENTION_DAYS: "7" } });
    const ids = (await host.api("GET", "/calls?limit=1000")).body.items.map((call: any) => call.id);
    for (const id of old) expect(ids).not.toContain(id);
    // A recent call stays.
    expect((await host.api("GET", "/calls?toolId=failing")).body.items).toHaveLength(1);
    // The pruned calls were the newest: the next call still gets a higher id than any given before.
    await host.api("POST", "/tools/files/readFile/invoke", { parameters: {} });
    const [latest] = (await host.api("GET", "/calls?limit=1")).body.items;
    expect(latest.id).toBeGreaterThan(Math.max(...old));
  });
});
