import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_SCOPE } from "./support/account-api.js";
import { databaseEnv, testDialect } from "./support/database.js";
import { type ApiResponse, readApiResponse, startHost, type TestHost, tempDir } from "./support/host.js";
import { startUpstream, UPSTREAM_CLIENT_ID, type Upstream } from "./support/upstream-oauth.js";

/**
 * One refresh of a shared connection across hosts: two real hosts
 * (`cyrnel start`, spawned) share one fresh PostgreSQL database and one
 * CYRNEL_SECRETS_KEY; the upstream is the real authorization server and
 * API of connections.test.ts (support/upstream-oauth.ts), whose refresh
 * tokens are single-use: presenting a used one again revokes the whole
 * grant, so two hosts refreshing the same stale token would end the
 * connection. The account is connected once, through host A (the
 * provider's only redirect URI is A's /oauth/callback), with access tokens
 * living 3 s. Once one has expired, calls fired at both hosts at once must
 * all act for the account, through exactly one refresh between them (the
 * connection's lock is a PostgreSQL advisory lock, and the connection is
 * read again under it), every call carrying the token that refresh got.
 *
 * PostgreSQL only (skipped on SQLite, whose database is one host's file).
 * No assertion is timed: the waits are for a token's `exp` to pass, and the
 * test's timeout is the only clock.
 */
const API_KEY = "connections-cluster-admin-key";
/** Base64 of 32 bytes: host B opens the tokens host A sealed. */
const SECRETS_KEY = Buffer.alloc(32, 9).toString("base64");
const CLIENT_SECRET = "upstream-client-secret-of-the-connections-cluster-suite";
const SERVICE = "account";
const SUBJECT = "acme-ops";
/** Calls fired at each host at once. */
const CALLS_PER_HOST = 10;

describe.skipIf(testDialect() !== "postgres")("a shared connection across hosts (PostgreSQL)", () => {
  let upstream: Upstream;
  let a: TestHost;
  let b: TestHost;

  const invokeMe = (host: TestHost) => host.api("POST", `/tools/${SERVICE}/me/invoke`, { parameters: {} });
  /** The last token the API saw. */
  const lastToken = () => upstream.api.requests.at(-1)!.token!;

  /** Resolves once the JWT `token` has expired (`exp` counts whole seconds: a second more, for rounding). */
  const pastExpiryOf = (token: string) =>
    new Promise((resolve) => setTimeout(resolve, Math.max(0, decodeJwt(token).exp! * 1000 - Date.now()) + 1000));

  /**
   * Fires CALLS_PER_HOST calls at each host together (A and B in turn), once the current token has expired, and
   * checks that each was answered for the account through exactly one refresh; answers the token it got.
   */
  async function burstAfterExpiry(): Promise<string> {
    const stale = lastToken();
    await pastExpiryOf(stale);
    const seen = upstream.api.requests.length;
    const tokenRequests = upstream.issuer.tokenRequests.length;

    const hosts = Array.from({ length: 2 * CALLS_PER_HOST }, (_, index) => (index % 2 === 0 ? a : b));
    const answers: ApiResponse[] = await Promise.all(hosts.map((host) => invokeMe(host)));
    for (const [index, answer] of answers.entries()) {
      expect(answer.status, `call ${index} on host ${index % 2 === 0 ? "A" : "B"}: ${answer.text}`).toBe(200);
      expect(answer.body.result).toEqual({ sub: SUBJECT });
    }

    // One refresh between both hosts, which the provider granted (a used refresh token sent again is refused, and
    // revokes the grant).
    expect(
      upstream.issuer.tokenRequests
        .slice(tokenRequests)
        .map(({ grantType, status, error }) => [grantType, status, error]),
    ).toEqual([["refresh_token", 200, null]]);
    // Every call reached the API once, accepted, with that refresh's token: the stale one never went out.
    const requests = upstream.api.requests.slice(seen);
    expect(requests.map(({ status, sub }) => [status, sub])).toEqual(answers.map(() => [200, SUBJECT]));
    const tokens = new Set(requests.map(({ token }) => token));
    expect(tokens.size).toBe(1);
    const [fresh] = tokens;
    expect(fresh).not.toBe(stale);
    expect(upstream.issuer.issued).toContain(fresh);
    return fresh!;
  }

  beforeAll(async () => {
    const env = {
      CYRNEL_DATABASE_URL: (await databaseEnv(tempDir())).CYRNEL_DATABASE_URL!,
      CYRNEL_SECRETS_KEY: SECRETS_KEY,
      CYRNEL_API_KEY: API_KEY,
    };
    a = await startHost({ env });
    upstream = await startUpstream({ redirectUri: `${a.url}/oauth/callback`, clientSecret: CLIENT_SECRET });
    const installed = await a.api("POST", "/services", {
      id: SERVICE,
      adapter: "openapi",
      definition: upstream.definition,
      enabled: true,
    });
    expect(installed.status, installed.text).toBe(201);
    const settings = await a.api("PUT", `/services/${SERVICE}/oauth`, {
      clientId: UPSTREAM_CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      scopes: [ACCOUNT_SCOPE],
      credentials: "shared",
    });
    expect(settings.status, settings.text).toBe(200);
    // B starts after the service and its settings are in the database (a starting host reads them there).
    b = await startHost({ env });
  });

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await upstream?.close();
  });

  it("is connected once, through host A, and both hosts' calls go out with its token", async () => {
    // Short-lived from the first token on: every token of this connection expires while the test waits.
    upstream.issuer.accessTokenTTL = 3;
    const started = await a.api("POST", `/services/${SERVICE}/connections`);
    expect(started.status, started.text).toBe(201);
    const landing = await upstream.issuer.authorize(started.body.authorizationUrl, { subject: SUBJECT });
    const landed: ApiResponse = await readApiResponse(
      await fetch(landing, { headers: { accept: "application/json" } }),
    );
    expect(landed.status, landed.text).toBe(200);
    expect(landed.body.connection).toMatchObject({ serviceId: SERVICE, owner: "shared", refreshable: true });

    // One call on each host (each host's first, which loads the service): both act for the account. Either may
    // already find the 3 s token stale on a slow machine and refresh it; the bursts below count from after them.
    for (const host of [a, b]) {
      const answer = await invokeMe(host);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.result).toEqual({ sub: SUBJECT });
    }
  });

  it("is refreshed once for calls fired at both hosts at once after its token expired, and again the next time", async () => {
    const first = await burstAfterExpiry();
    // The refreshed token expires in turn: the refresh token that refresh got (rotated) is good for the next one.
    const second = await burstAfterExpiry();
    expect(second).not.toBe(first);

    // The connection lives on, the same one seen from both hosts.
    const fromA = await a.api("GET", `/services/${SERVICE}/connections`);
    const fromB = await b.api("GET", `/services/${SERVICE}/connections`);
    expect(fromA.body.items).toHaveLength(1);
    expect(fromA.body.items[0].refreshedAt).toEqual(expect.any(String));
    expect(fromB.body).toEqual(fromA.body);
    expect(upstream.issuer.tokenRequests.every(({ status }) => status === 200)).toBe(true);
  });
});
