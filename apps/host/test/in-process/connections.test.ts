import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InProcessHost, startInProcess } from "../support/in-process.js";
import { enableRecorder, installRecorded } from "../support/recorder.js";

/**
 * What the end-to-end proof (test/connections.test.ts) cannot reach from outside: an authorization request past
 * its 10 minutes, what the database holds of a request under way, settings the host refuses, and a deleted
 * service taking its OAuth client secret with it.
 */
let host: InProcessHost;

beforeAll(async () => {
  host = await startInProcess({ modules: ["recorder"] });
  await enableRecorder(host);
  await installRecorded(host, "crm", [{ id: "me" }], { enabled: true });
});

afterAll(() => host?.stop());

const settings = {
  clientId: "cyrnel",
  clientSecret: "client-secret-value-1",
  authorizationUrl: "http://127.0.0.1:9/authorize",
  tokenUrl: "http://127.0.0.1:9/token",
  scopes: ["me:read"],
};

describe("connections, inside the host", () => {
  it("refuses settings without a flow to use, and parameters the host sets itself", async () => {
    const noUrls = await host.api("PUT", "/services/crm/oauth", { clientId: "cyrnel" });
    expect(noUrls.status).toBe(400);
    expect(noUrls.body.error).toContain("declares no authorization-code flow");
    const own = await host.api("PUT", "/services/crm/oauth", { ...settings, authorizationParams: { state: "x" } });
    expect(own.status).toBe(400);
    expect(own.body.error).toContain(`"state" is set by the host itself`);
    const notHttp = await host.api("PUT", "/services/crm/oauth", { ...settings, tokenUrl: "file:///etc/passwd" });
    expect(notHttp.status).toBe(400);
    expect((await host.api("GET", "/services/crm/oauth")).body.ready).toBe(false);
  });

  it("keeps only the state's hash and the verifier sealed, and refuses a state past its 10 minutes", async () => {
    expect((await host.api("PUT", "/services/crm/oauth", settings)).status).toBe(200);
    const started = await host.api("POST", "/services/crm/connections");
    expect(started.status, started.text).toBe(201);
    // The URL carries the single-use state: no cache may keep it.
    expect(started.headers.get("cache-control")).toBe("no-store");
    const url = new URL(started.body.authorizationUrl);
    const state = url.searchParams.get("state")!;
    const challenge = url.searchParams.get("code_challenge")!;
    const [row] = await host.host.store.query<Record<string, string>>("select * from connection_requests");
    expect(row!.state_hash).toBe(createHash("sha256").update(state).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(state);
    expect(JSON.stringify(row)).not.toContain(challenge);

    await host.host.store.query("update connection_requests set expires_at = ?", ["2020-01-01T00:00:00.000Z"]);
    const late = await host.api("GET", `/oauth/callback?state=${state}&code=anything`, undefined, {
      accept: "application/json",
    });
    expect(late.status).toBe(400);
    expect(late.body.code).toBe("validation_failed");
    expect(late.body.error).toContain("unknown, already used or expired");
    // Taken all the same: the state cannot be tried again.
    expect(await host.host.store.query("select * from connection_requests")).toEqual([]);
  });

  it("a call without a connection is 403 connection_required with a URL to connect; nothing reaches the adapter", async () => {
    const call = await host.api("POST", "/tools/crm/me/invoke", { parameters: {} });
    expect(call.status).toBe(403);
    expect(call.body.code).toBe("connection_required");
    expect(call.body.details.authorizationUrl).toMatch(/^http:\/\/127\.0\.0\.1:9\/authorize\?/);
    expect(call.body.error).toContain(call.body.details.authorizationUrl);
    // Code calling in a loop is offered the same URL, not one more stored request per call.
    const requests = await host.host.store.query("select * from connection_requests");
    const again = await host.api("POST", "/tools/crm/me/invoke", { parameters: {} });
    expect(again.body.details.authorizationUrl).toBe(call.body.details.authorizationUrl);
    expect(await host.host.store.query("select * from connection_requests")).toHaveLength(requests.length);
  });

  it("a deleted service takes its OAuth client secret and requests with it", async () => {
    const sealed = () =>
      host.host.store.query("select owner_type from secrets where owner_type = 'service-oauth' and owner_id = 'crm'");
    expect(await sealed()).toHaveLength(1);
    expect((await host.api("DELETE", "/services/crm")).status).toBe(204);
    expect(await sealed()).toEqual([]);
    expect(await host.host.store.query("select * from connection_requests")).toEqual([]);
    expect(await host.host.store.query("select * from service_oauth")).toEqual([]);
  });
});
