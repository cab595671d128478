import { AdapterError, type AdapterModule, type ServiceDefinition, type ServiceState } from "@cyrnel/sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MAX_ACCOUNT_SESSIONS } from "../src/account-sessions.js";
import { type AccountServer, startAccountServer, type Whoami } from "./account-server.js";
import { adapter, stateOf } from "./support.js";

/**
 * Secret headers and query parameters, and connected accounts' access tokens, against a real Streamable HTTP MCP
 * server (test/account-server.ts): what each request carries, and which session each call goes over.
 */
let server: AccountServer;
let mcp: AdapterModule;
let definition: ServiceDefinition;
const ID = "accounts";

beforeAll(async () => {
  server = await startAccountServer();
  ({ adapter: mcp } = await adapter());
  definition = await mcp.generateDefinition(JSON.stringify({ transport: "http", url: server.url }));
});
afterAll(async () => {
  await mcp?.teardown();
  await server?.close();
});
afterEach(async () => {
  await mcp.dehydrateService(ID);
  server.refused.clear();
});

const hydrate = (secrets: Record<string, unknown>, extra: Pick<ServiceState, "secretHeaders" | "secretQuery"> = {}) =>
  mcp.hydrateService({ ...stateOf(ID, definition, secrets), ...extra });

async function whoami(accessToken?: string, parameters: Record<string, unknown> = {}): Promise<Whoami> {
  const result = (await mcp.invoke({
    serviceId: ID,
    toolId: "whoami",
    parameters,
    ...(accessToken === undefined ? {} : { accessToken }),
  })) as { text: string };
  return JSON.parse(result.text);
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: Error & { status?: number }) => error,
  );

describe("secret headers and query parameters over HTTP", () => {
  it("go on every request of the session, over the service's own headers, and on the endpoint URL", async () => {
    const from = server.requests.length;
    await hydrate(
      { bearerToken: "service-token", headers: { "X-Key": "from-secrets" } },
      { secretHeaders: { "x-key": "secret-header", "X-Gateway": "gateway" }, secretQuery: { api_key: "q s/1" } },
    );
    expect(await whoami()).toMatchObject({
      authorization: "Bearer service-token",
      xKey: "secret-header",
      query: "?api_key=q+s%2F1",
    });
    const sent = server.requests.slice(from);
    expect(sent.length).toBeGreaterThan(2);
    for (const request of sent) {
      expect(request.headers["x-gateway"], `${request.method} ${request.url}`).toBe("gateway");
      expect(request.url).toBe("/mcp?api_key=q+s%2F1");
    }
  });

  it("include a secret Authorization header, which replaces the bearer token", async () => {
    await hydrate({ bearerToken: "service-token" }, { secretHeaders: { Authorization: "token operator-set" } });
    expect((await whoami()).authorization).toBe("token operator-set");
  });

  it("may not replace a header the MCP transport sets", async () => {
    await expect(hydrate({}, { secretHeaders: { "Mcp-Session-Id": "forged" } })).rejects.toThrow(
      `the secret header "Mcp-Session-Id" must not be set: the MCP transport sets it`,
    );
  });
});

describe("a connected account's access token", () => {
  it("gets a session of its own, opened with Authorization: Bearer and reused by the calls that carry it", async () => {
    await hydrate({ bearerToken: "service-token" }, { secretHeaders: { "X-Key": "secret-header" } });
    const own = await whoami();
    const a = await whoami("token-a");
    const b = await whoami("token-b");
    const again = await whoami("token-a");
    expect(own).toMatchObject({ authorization: "Bearer service-token", xKey: "secret-header" });
    expect(a).toMatchObject({ authorization: "Bearer token-a", xKey: "secret-header" });
    expect(b.authorization).toBe("Bearer token-b");
    expect(new Set([own.session, a.session, b.session]).size).toBe(3);
    expect(again.session).toBe(a.session);
    expect((await whoami()).session).toBe(own.session);
  });

  it(`keeps at most ${MAX_ACCOUNT_SESSIONS} account sessions, closing the least recently used`, async () => {
    await hydrate({});
    const sessions = new Map<string, string>();
    for (let index = 0; index < MAX_ACCOUNT_SESSIONS; index++) {
      sessions.set(`token-${index}`, (await whoami(`token-${index}`)).session);
    }
    // token-0 used again: token-1 is now the least recently used.
    expect((await whoami("token-0")).session).toBe(sessions.get("token-0"));
    await whoami("token-new");
    await expect.poll(() => server.closed).toContain(sessions.get("token-1"));
    expect(server.closed).not.toContain(sessions.get("token-0"));
    expect(server.open()).toBe(MAX_ACCOUNT_SESSIONS + 1);
    // Used again, it gets a new session.
    const reopened = await whoami("token-1");
    expect(reopened.session).not.toBe(sessions.get("token-1"));
  });

  it("a session dropped from the bound while a call uses it is closed only once that call has ended", async () => {
    await hydrate({});
    const { arrived, release } = server.hold();
    const heldCall = whoami("token-held", { hold: true });
    await arrived;
    const held = server.requests.findLast((request) => request.headers.authorization === "Bearer token-held");
    const heldSession = String(held?.headers["mcp-session-id"]);
    // token-held is now the least recently used of MAX + 1 tokens: dropped, but its call is still in flight.
    for (let index = 0; index < MAX_ACCOUNT_SESSIONS; index++) await whoami(`token-${index}`);
    expect(server.closed).not.toContain(heldSession);
    release();
    expect((await heldCall).session).toBe(heldSession);
    await expect.poll(() => server.closed).toContain(heldSession);
  });

  it("refused by the server is an error with status 401, and that token's session is dropped", async () => {
    await hydrate({});
    const before = await whoami("token-old");
    server.refused.add("Bearer token-old");
    const refused = await failure(whoami("token-old"));
    expect(refused).toBeInstanceOf(AdapterError);
    expect(refused.status).toBe(401);
    expect(refused.message).toContain(`MCP server refused "whoami"`);
    // A session cannot be opened with it either: still 401, which a host answers by refreshing the token.
    const opening = await failure(whoami("token-old"));
    expect(opening.status).toBe(401);
    expect(opening.message).toContain("cannot connect to the MCP server");
    server.refused.clear();
    const after = await whoami("token-old");
    expect(after.session).not.toBe(before.session);
    expect(after.authorization).toBe("Bearer token-old");
  });

  it("gives way to a secret Authorization header: the call goes over the service's own session", async () => {
    await hydrate({}, { secretHeaders: { authorization: "token operator-set" } });
    const own = await whoami();
    const account = await whoami("token-a");
    expect(account).toEqual(own);
    expect(account.authorization).toBe("token operator-set");
  });

  it("sessions are closed when the service is dehydrated", async () => {
    await hydrate({});
    const sessions = [(await whoami()).session, (await whoami("token-a")).session, (await whoami("token-b")).session];
    const open = server.open();
    await mcp.dehydrateService(ID);
    expect(server.closed).toEqual(expect.arrayContaining(sessions));
    expect(server.open()).toBe(open - sessions.length);
  });
});
