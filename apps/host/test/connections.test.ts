import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_SCOPE } from "./support/account-api.js";
import { everyRowText, testDialect } from "./support/database.js";
import { type ApiResponse, readApiResponse, startHost, type TestHost } from "./support/host.js";
import { startUpstream, UPSTREAM_CLIENT_ID, type Upstream } from "./support/upstream-oauth.js";

/**
 * OAuth connections end to end: services that act for a user's account.
 * The upstream is a real authorization server (oidc-provider) and the API
 * it protects, which accepts only that server's JWT access tokens and
 * answers who they act for (support/upstream-oauth.ts). The host runs the
 * authorization-code flow with PKCE; the user's browser is the fixture's
 * `authorize`, which signs in as a chosen account and hands back the
 * provider's redirect to the host's /oauth/callback. The same API is
 * installed twice: `account` with one shared connection, `mine` with one
 * connection per caller. Tokens expire, are refused upstream, refreshed
 * (each refresh token is single-use: the provider rotates them), revoked,
 * and never written or logged in the clear.
 */
const API_KEY = "connections-suite-admin-key";
const CLIENT_SECRET = "upstream-client-secret-of-the-connections-suite";
const SHARED = "account";
const PER_CALLER = "mine";

interface Connection {
  id: string;
  serviceId: string;
  owner: string;
  scopes: string[];
  expiresAt: string | null;
  refreshable: boolean;
  createdAt: string;
  refreshedAt: string | null;
}

let host: TestHost;
let upstream: Upstream;
let redirectUri: string;
type AgentName = "alice" | "bob" | "carol" | "dana";
/** Agent keys (no service allow-list), by the name of the account each connects. */
const agents = {} as Record<AgentName, { id: string; key: string }>;
/** The connections made, by who made them (an agent's name, or "shared"). */
const connections: Record<string, Connection> = {};

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
/** A request as `caller` (an agent's key), or as the admin. */
const as = (caller: { key: string } | "admin", method: string, path: string, body?: unknown) =>
  host.api(method, path, body, caller === "admin" ? {} : bearer(caller.key));
const invokeMe = (caller: { key: string } | "admin", serviceId: string) =>
  as(caller, "POST", `/tools/${serviceId}/me/invoke`, { parameters: {} });

/** What the user's browser does with a URL the provider redirected it to: a plain GET, without any key. */
async function browse(url: URL | string, accept?: string): Promise<ApiResponse> {
  return readApiResponse(await fetch(url, { headers: accept === undefined ? {} : { accept } }));
}

/** Starts a connection as `caller`; the answer's authorization URL, checked to be 201. */
async function startConnection(caller: { key: string } | "admin", serviceId: string) {
  const started = await as(caller, "POST", `/services/${serviceId}/connections`);
  expect(started.status, started.text).toBe(201);
  return started.body as { authorizationUrl: string; expiresAt: string; owner: string };
}

/** The whole flow: start, sign in upstream as `subject`, land on the host's callback (asking for JSON). */
async function connect(caller: { key: string } | "admin", serviceId: string, subject: string): Promise<Connection> {
  const { authorizationUrl } = await startConnection(caller, serviceId);
  const landed = await browse(await upstream.issuer.authorize(authorizationUrl, { subject }), "application/json");
  expect(landed.status, landed.text).toBe(200);
  expect(landed.headers.get("cache-control")).toBe("no-store");
  return landed.body.connection as Connection;
}

/** The token each request that reached the API since `from` carried, with the API's answer and the subject. */
const apiRequestsSince = (from: number) =>
  upstream.api.requests.slice(from).map(({ token, status, sub }) => ({ token, status, sub }));
/** The last token the API accepted for `sub`. */
const lastTokenOf = (sub: string) => upstream.api.requests.findLast((request) => request.sub === sub)!.token!;
const refreshesSince = (from: number) =>
  upstream.issuer.tokenRequests.slice(from).filter((request) => request.grantType === "refresh_token");

async function createAgent(name: string) {
  const created = await host.api("POST", "/keys", { name, role: "agent" });
  expect(created.status, created.text).toBe(201);
  return created.body as { id: string; key: string };
}

/** Runs `code` as `caller`, unchecked, and answers its output. */
async function run(caller: { key: string }, code: string) {
  const response = await as(caller, "POST", "/processes", { code, block: true, typecheck: false });
  expect(response.status, response.text).toBe(201);
  expect(response.body.exitState, `${response.body.error} ${response.body.stderr}`).toBe("success");
  return response.body.output;
}

const ATTEMPT_ME = `
  try {
    cyrnel.output({ ok: await cyrnel.services.${PER_CALLER}.tools.me.invoke({}) });
  } catch (error: any) {
    cyrnel.output({ status: error.status, code: error.code, message: error.message });
  }`;

beforeAll(async () => {
  host = await startHost({ env: { CYRNEL_API_KEY: API_KEY } });
  redirectUri = `${host.url}/oauth/callback`;
  upstream = await startUpstream({ redirectUri, clientSecret: CLIENT_SECRET });
  for (const id of [SHARED, PER_CALLER]) {
    const installed = await host.api("POST", "/services", {
      id,
      adapter: "openapi",
      definition: upstream.definition,
      enabled: true,
    });
    expect(installed.status, installed.text).toBe(201);
  }
  for (const name of ["alice", "bob", "carol", "dana"] as const) agents[name] = await createAgent(`${name}-agent`);
});
afterAll(async () => {
  await host?.stop();
  await upstream?.close();
});

describe("a service's OAuth settings", () => {
  it("take the document's flow for what they leave out; PUT answers what GET shows, never the secret", async () => {
    const { issuer } = upstream;
    const settings = {
      clientId: UPSTREAM_CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      revocationUrl: issuer.revocationUrl,
      scopes: [ACCOUNT_SCOPE],
      credentials: "shared",
      authorizationParams: { prompt: "consent" },
    };
    const put = await host.api("PUT", `/services/${SHARED}/oauth`, settings);
    expect(put.status, put.text).toBe(200);
    const got = await host.api("GET", `/services/${SHARED}/oauth`);
    expect(got.status, got.text).toBe(200);
    expect(put.body).toEqual(got.body);
    expect(got.body).toMatchObject({
      serviceId: SHARED,
      declared: { authorizationUrl: issuer.authorizationUrl, tokenUrl: issuer.tokenUrl, scopes: [ACCOUNT_SCOPE] },
      authorizationUrl: issuer.authorizationUrl,
      tokenUrl: issuer.tokenUrl,
      revocationUrl: issuer.revocationUrl,
      scopes: [ACCOUNT_SCOPE],
      clientId: UPSTREAM_CLIENT_ID,
      clientSecretSet: true,
      credentials: "shared",
      authorizationParams: { prompt: "consent" },
      redirectUri,
      ready: true,
    });
    expect(got.body).not.toHaveProperty("clientSecret");
    for (const answer of [put, got]) expect(answer.text).not.toContain(CLIENT_SECRET);
  });

  it("keep the stored client secret when a PUT leaves it out, and drop it on null", async () => {
    const settings = {
      clientId: UPSTREAM_CLIENT_ID,
      revocationUrl: upstream.issuer.revocationUrl,
      scopes: [ACCOUNT_SCOPE],
      credentials: "per-caller",
    };
    const withSecret = await host.api("PUT", `/services/${PER_CALLER}/oauth`, { ...settings, clientSecret: "x" });
    expect(withSecret.body.clientSecretSet).toBe(true);
    const cleared = await host.api("PUT", `/services/${PER_CALLER}/oauth`, { ...settings, clientSecret: null });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.clientSecretSet).toBe(false);
    await host.api("PUT", `/services/${PER_CALLER}/oauth`, { ...settings, clientSecret: CLIENT_SECRET });
    // Left out: the secret stays (the token requests of the per-caller connections below need it).
    const kept = await host.api("PUT", `/services/${PER_CALLER}/oauth`, settings);
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body).toMatchObject({ clientSecretSet: true, credentials: "per-caller", ready: true });
    expect(kept.body.authorizationUrl).toBe(upstream.issuer.authorizationUrl);
  });

  it("are the admin's: an agent's GET and PUT are 403 forbidden", async () => {
    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", { clientId: "mine", credentials: "shared" }],
    ] as const) {
      const response = await as(agents.alice, method, `/services/${SHARED}/oauth`, body);
      expect([response.status, response.body.code], response.text).toEqual([403, "forbidden"]);
    }
  });

  it("refuse a credentials mode that does not exist", async () => {
    const response = await host.api("PUT", `/services/${SHARED}/oauth`, {
      clientId: UPSTREAM_CLIENT_ID,
      credentials: "everyone",
    });
    expect([response.status, response.body.code], response.text).toEqual([400, "validation_failed"]);
    expect((await host.api("GET", `/services/${SHARED}/oauth`)).body.credentials).toBe("shared");
  });
});

describe("a shared connection", () => {
  /** The redirect the provider sent the browser to when the shared connection was made, for the replay. */
  let landing: URL;

  it("is started by an admin only: an agent is 403 forbidden", async () => {
    const response = await as(agents.alice, "POST", `/services/${SHARED}/connections`);
    expect([response.status, response.body.code], response.text).toEqual([403, "forbidden"]);
  });

  it("starts at an authorization URL with PKCE S256, a fresh state, the redirect URI, the scopes and the extra parameters", async () => {
    const sent = Date.now();
    const [first, second] = [await startConnection("admin", SHARED), await startConnection("admin", SHARED)];
    const received = Date.now();
    expect(first!.owner).toBe("shared");
    const urls = [first!, second!].map((started) => new URL(started.authorizationUrl));
    for (const url of urls) {
      expect(`${url.origin}${url.pathname}`).toBe(upstream.issuer.authorizationUrl);
      const params = url.searchParams;
      expect(params.get("response_type")).toBe("code");
      expect(params.get("client_id")).toBe(UPSTREAM_CLIENT_ID);
      expect(params.get("redirect_uri")).toBe(redirectUri);
      expect(params.get("code_challenge_method")).toBe("S256");
      expect(params.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(params.get("state")?.length).toBeGreaterThanOrEqual(16);
      expect(params.get("scope")?.split(" ")).toContain(ACCOUNT_SCOPE);
      expect(params.get("prompt")).toBe("consent");
      expect(url.href).not.toContain(CLIENT_SECRET);
    }
    expect(urls[0]!.searchParams.get("state")).not.toBe(urls[1]!.searchParams.get("state"));
    expect(urls[0]!.searchParams.get("code_challenge")).not.toBe(urls[1]!.searchParams.get("code_challenge"));
    // The state lives 10 minutes from when it was made (a second either way for rounding).
    const TEN_MINUTES = 10 * 60_000;
    expect(Date.parse(first!.expiresAt)).toBeGreaterThanOrEqual(sent + TEN_MINUTES - 1000);
    expect(Date.parse(first!.expiresAt)).toBeLessThanOrEqual(received + TEN_MINUTES + 1000);
  });

  it("is made by the provider's redirect to /oauth/callback, and every caller's calls go out with its token", async () => {
    const { authorizationUrl } = await startConnection("admin", SHARED);
    const codesBefore = upstream.issuer.tokenRequests.length;
    landing = await upstream.issuer.authorize(authorizationUrl, { subject: "acme-ops" });
    expect(`${landing.origin}${landing.pathname}`).toBe(redirectUri);
    const landed = await browse(landing, "application/json");
    expect(landed.status, landed.text).toBe(200);
    const connection = landed.body.connection as Connection;
    expect(connection).toMatchObject({ serviceId: SHARED, owner: "shared", refreshable: true });
    expect(connection.id).toEqual(expect.any(String));
    expect(connection.scopes).toContain(ACCOUNT_SCOPE);
    expect(Date.parse(connection.createdAt)).not.toBeNaN();
    connections.shared = connection;
    // The code was exchanged once, with the client's secret and the PKCE verifier (the provider requires both).
    expect(
      upstream.issuer.tokenRequests.slice(codesBefore).map(({ grantType, status }) => [grantType, status]),
    ).toEqual([["authorization_code", 200]]);

    const seen = upstream.api.requests.length;
    const byAdmin = await invokeMe("admin", SHARED);
    expect(byAdmin.status, byAdmin.text).toBe(200);
    expect(byAdmin.body.result).toEqual({ sub: "acme-ops" });
    const byAgent = await invokeMe(agents.alice, SHARED);
    expect(byAgent.status, byAgent.text).toBe(200);
    expect(byAgent.body.result).toEqual({ sub: "acme-ops" });
    const requests = apiRequestsSince(seen);
    expect(requests.map(({ status, sub }) => [status, sub])).toEqual([
      [200, "acme-ops"],
      [200, "acme-ops"],
    ]);
    for (const { token } of requests) expect(upstream.issuer.issued).toContain(token);
  });

  it("is listed without its tokens", async () => {
    const listed = await host.api("GET", `/services/${SHARED}/connections`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.items).toEqual([expect.objectContaining({ id: connections.shared!.id, owner: "shared" })]);
    for (const token of upstream.issuer.issued) expect(listed.text).not.toContain(token);
    expect(listed.text).not.toContain(CLIENT_SECRET);
  });

  it("is not made by a replayed, unknown or refused callback: 400 validation_failed saying why", async () => {
    const stateRefused = (response: ApiResponse) => {
      expect([response.status, response.body.code], response.text).toEqual([400, "validation_failed"]);
      expect(response.body.error).toMatch(/state/i);
      expect(response.body.error).toMatch(/unknown|used|expired/i);
    };
    stateRefused(await browse(landing, "application/json"));
    const garbage = new URL(redirectUri);
    garbage.searchParams.set("code", landing.searchParams.get("code")!);
    garbage.searchParams.set("state", "not-a-state-this-host-made");
    stateRefused(await browse(garbage, "application/json"));

    const { authorizationUrl } = await startConnection("admin", SHARED);
    const refusal = await upstream.issuer.authorize(authorizationUrl, { refuse: true });
    expect(refusal.searchParams.get("error")).toBe("access_denied");
    const refused = await browse(refusal, "application/json");
    expect([refused.status, refused.body.code], refused.text).toEqual([400, "validation_failed"]);
    expect(refused.body.error).toContain("access_denied");

    // The connection made before is untouched.
    const listed = await host.api("GET", `/services/${SHARED}/connections`);
    expect(listed.body.items.map((item: Connection) => item.id)).toEqual([connections.shared!.id]);
    expect((await invokeMe("admin", SHARED)).body.result).toEqual({ sub: "acme-ops" });
  });
});

describe("per-caller connections", () => {
  it("each agent connects its own account, and its calls act for that account, direct and from code", async () => {
    const aliceStarted = await startConnection(agents.alice, PER_CALLER);
    expect(aliceStarted.owner).toBe(agents.alice.id);
    const aliceLanded = await browse(
      await upstream.issuer.authorize(aliceStarted.authorizationUrl, { subject: "alice" }),
      "application/json",
    );
    expect(aliceLanded.status, aliceLanded.text).toBe(200);
    connections.alice = aliceLanded.body.connection;
    expect(connections.alice).toMatchObject({ serviceId: PER_CALLER, owner: agents.alice.id, refreshable: true });

    // Bob's browser lands on the callback as a browser does, and is shown a page.
    const bobStarted = await startConnection(agents.bob, PER_CALLER);
    expect(bobStarted.owner).toBe(agents.bob.id);
    const page = await browse(await upstream.issuer.authorize(bobStarted.authorizationUrl, { subject: "bob" }));
    expect(page.status, page.text).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("cache-control")).toBe("no-store");
    for (const token of upstream.issuer.issued) expect(page.text).not.toContain(token);
    const bobs = await as(agents.bob, "GET", `/services/${PER_CALLER}/connections`);
    expect(bobs.status, bobs.text).toBe(200);
    expect(bobs.body.items).toEqual([expect.objectContaining({ serviceId: PER_CALLER, owner: agents.bob.id })]);
    connections.bob = bobs.body.items[0];

    for (const [name, sub] of [
      ["alice", "alice"],
      ["bob", "bob"],
    ] as const) {
      const direct = await invokeMe(agents[name], PER_CALLER);
      expect(direct.status, direct.text).toBe(200);
      expect(direct.body.result).toEqual({ sub });
      expect(await run(agents[name], ATTEMPT_ME)).toEqual({ ok: { sub } });
    }
  });

  it("are listed to their owner alone; an admin sees them all", async () => {
    const alices = await as(agents.alice, "GET", `/services/${PER_CALLER}/connections`);
    expect(alices.body.items.map((item: Connection) => item.id)).toEqual([connections.alice!.id]);
    const all = await host.api("GET", `/services/${PER_CALLER}/connections`);
    expect(all.body.items.map((item: Connection) => item.owner).sort()).toEqual(
      [agents.alice.id, agents.bob.id].sort(),
    );
    for (const token of upstream.issuer.issued) expect(all.text).not.toContain(token);
  });

  it("a caller without one is 403 connection_required, told the URL that connects it", async () => {
    const seen = upstream.api.requests.length;
    const refused = await invokeMe(agents.carol, PER_CALLER);
    expect([refused.status, refused.body.code], refused.text).toEqual([403, "connection_required"]);
    const url: string = refused.body.details?.authorizationUrl;
    expect(url.startsWith(`${upstream.issuer.authorizationUrl}?`), url).toBe(true);
    expect(refused.body.error).toContain(url);
    const fromCode = await run(agents.carol, ATTEMPT_ME);
    expect(fromCode).toMatchObject({ status: 403, code: "connection_required" });
    expect(fromCode.message).toContain(upstream.issuer.authorizationUrl);
    expect(upstream.api.requests.length).toBe(seen);

    // The URL connects carol's own account.
    const landed = await browse(await upstream.issuer.authorize(url, { subject: "carol" }), "application/json");
    expect(landed.status, landed.text).toBe(200);
    expect(landed.body.connection.owner).toBe(agents.carol.id);
    connections.carol = landed.body.connection;
    expect((await invokeMe(agents.carol, PER_CALLER)).body.result).toEqual({ sub: "carol" });
  });

  it("the admin's own (the bootstrap key's) is owned by bootstrap", async () => {
    expect((await startConnection("admin", PER_CALLER)).owner).toBe("bootstrap");
  });
});

describe("refreshing tokens", () => {
  it("a token the API refuses (401) is refreshed once and the call sent once more, with each refresh's new refresh token", async () => {
    // Twice: the second refresh works only with the refresh token the first one returned (the provider rotates them).
    for (let round = 0; round < 2; round++) {
      const refusedToken = lastTokenOf("alice");
      upstream.api.refuse(refusedToken);
      const seen = upstream.api.requests.length;
      const refreshes = upstream.issuer.tokenRequests.length;
      const response = await invokeMe(agents.alice, PER_CALLER);
      expect(response.status, response.text).toBe(200);
      expect(response.body.result).toEqual({ sub: "alice" });
      const requests = apiRequestsSince(seen);
      expect(requests.map(({ status }) => status)).toEqual([401, 200]);
      expect(requests[0]!.token).toBe(refusedToken);
      expect(requests[1]!.token).not.toBe(refusedToken);
      expect(refreshesSince(refreshes).map(({ status }) => status)).toEqual([200]);
    }
  });

  it("a token refused again after the refresh is not retried a second time", async () => {
    const seen = upstream.api.requests.length;
    const refreshes = upstream.issuer.tokenRequests.length;
    upstream.api.refuseEvery(true);
    try {
      const response = await invokeMe(agents.alice, PER_CALLER);
      expect(response.status, response.text).not.toBe(200);
    } finally {
      upstream.api.refuseEvery(false);
    }
    expect(apiRequestsSince(seen).map(({ status }) => status)).toEqual([401, 401]);
    expect(refreshesSince(refreshes)).toHaveLength(1);
    // The refreshed token itself is good: the next call uses it.
    expect((await invokeMe(agents.alice, PER_CALLER)).body.result).toEqual({ sub: "alice" });
  });

  it("an expired token is refreshed before the call: the API never sees it again", async () => {
    upstream.issuer.accessTokenTTL = 3;
    try {
      connections.dana = await connect(agents.dana, PER_CALLER, "dana");
      expect((await invokeMe(agents.dana, PER_CALLER)).body.result).toEqual({ sub: "dana" });
      const shortLived = lastTokenOf("dana");
      // Past its expiry (`exp` counts whole seconds), the token is of no use to anyone.
      const expiry = decodeJwt(shortLived).exp! * 1000;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiry - Date.now()) + 1500));

      const seen = upstream.api.requests.length;
      const refreshes = upstream.issuer.tokenRequests.length;
      const response = await invokeMe(agents.dana, PER_CALLER);
      expect(response.status, response.text).toBe(200);
      expect(response.body.result).toEqual({ sub: "dana" });
      const requests = apiRequestsSince(seen);
      expect(requests[0]!.token).not.toBe(shortLived);
      expect(requests.map(({ token }) => token)).not.toContain(shortLived);
      expect(refreshesSince(refreshes).length).toBeGreaterThan(0);
      expect(refreshesSince(refreshes).every(({ status }) => status === 200)).toBe(true);

      // From code as well, once the refreshed token has expired in turn.
      const refreshed = lastTokenOf("dana");
      const again = decodeJwt(refreshed).exp! * 1000;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, again - Date.now()) + 1500));
      const before = upstream.api.requests.length;
      expect(await run(agents.dana, ATTEMPT_ME)).toEqual({ ok: { sub: "dana" } });
      expect(apiRequestsSince(before).map(({ token }) => token)).not.toContain(refreshed);
    } finally {
      upstream.issuer.accessTokenTTL = 3600;
    }
    const listed = await as(agents.dana, "GET", `/services/${PER_CALLER}/connections`);
    expect(listed.body.items).toEqual([expect.objectContaining({ id: connections.dana!.id })]);
    expect(listed.body.items[0].refreshedAt).toEqual(expect.any(String));
  });
});

describe("call records", () => {
  it("name the connection each call went out with", async () => {
    const ownerOf = new Map(Object.values(connections).map((connection) => [connection.owner, connection.id]));
    const perCaller = (await host.api("GET", `/calls?serviceId=${PER_CALLER}&limit=1000`)).body.items;
    const ok = perCaller.filter((call: { outcome: string }) => call.outcome === "ok");
    expect(ok.length).toBeGreaterThan(0);
    for (const call of ok) expect(call.connectionId, JSON.stringify(call)).toBe(ownerOf.get(call.keyId));
    const shared = (await host.api("GET", `/calls?serviceId=${SHARED}&limit=1000`)).body.items;
    expect(shared.length).toBeGreaterThan(0);
    for (const call of shared) expect(call.connectionId, JSON.stringify(call)).toBe(connections.shared!.id);
  });
});

describe("disconnecting", () => {
  it("deletes the connection and revokes its refresh token at the provider; the owner's next call must connect again", async () => {
    const revocations = upstream.issuer.revocations.length;
    const deleted = await host.api("DELETE", `/services/${PER_CALLER}/connections/${connections.bob!.id}`);
    expect(deleted.status, deleted.text).toBe(204);
    const listed = await host.api("GET", `/services/${PER_CALLER}/connections`);
    expect(listed.body.items.map((item: Connection) => item.id)).not.toContain(connections.bob!.id);
    await expect
      .poll(() => upstream.issuer.revocations.slice(revocations))
      .toContainEqual(expect.objectContaining({ status: 200, revoked: "RefreshToken" }));

    const seen = upstream.api.requests.length;
    const refused = await invokeMe(agents.bob, PER_CALLER);
    expect([refused.status, refused.body.code], refused.text).toEqual([403, "connection_required"]);
    expect(upstream.api.requests.length).toBe(seen);
    // The others' connections go on.
    expect((await invokeMe(agents.alice, PER_CALLER)).body.result).toEqual({ sub: "alice" });
  });

  it("the shared connection likewise", async () => {
    const revocations = upstream.issuer.revocations.length;
    const deleted = await host.api("DELETE", `/services/${SHARED}/connections/${connections.shared!.id}`);
    expect(deleted.status, deleted.text).toBe(204);
    expect((await host.api("GET", `/services/${SHARED}/connections`)).body.items).toEqual([]);
    await expect
      .poll(() => upstream.issuer.revocations.slice(revocations))
      .toContainEqual(expect.objectContaining({ status: 200, revoked: "RefreshToken" }));
    const seen = upstream.api.requests.length;
    const refused = await invokeMe("admin", SHARED);
    expect([refused.status, refused.body.code], refused.text).toEqual([403, "connection_required"]);
    expect(upstream.api.requests.length).toBe(seen);
  });
});

describe("secrets at rest and in logs", () => {
  it("no token the provider issued, nor the client secret, is in the host's output or database", async () => {
    const secrets = [...upstream.issuer.issued, CLIENT_SECRET];
    expect(upstream.issuer.issued.length).toBeGreaterThan(0);
    const output = host.output.join("\n");
    for (const secret of secrets) expect(output.includes(secret)).toBe(false);
    // Every read flushes the call records; the database files (and the WAL) are read after one.
    const calls = await host.api("GET", "/calls?limit=1000");
    for (const secret of secrets) expect(calls.text.includes(secret)).toBe(false);
    if (testDialect() === "postgres") {
      const rows = await everyRowText(host.dataDir);
      for (const secret of secrets) expect(rows.includes(secret)).toBe(false);
      return;
    }
    for (const file of readdirSync(host.dataDir).filter((name) => name.startsWith("data.db"))) {
      const bytes = readFileSync(join(host.dataDir, file));
      for (const secret of secrets) expect(bytes.includes(secret), file).toBe(false);
    }
  });
});
