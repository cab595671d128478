import { afterAll, beforeAll, expect, it } from "vitest";
import { type InProcessHost, startInProcess } from "../support/in-process.js";

/**
 * An issuer that cannot be reached (nothing listens on its port) makes an access token uncheckable, not bad:
 * `503 issuer_unavailable` with `Retry-After`, so a client keeps its token and tries again instead of signing its
 * user in again, as a 401 would make it.
 */
let host: InProcessHost;

beforeAll(async () => {
  host = await startInProcess({
    env: {
      CYRNEL_OAUTH_ISSUER: "http://127.0.0.1:9/issuer",
      CYRNEL_ADVERTISE_URL: "http://127.0.0.1:8787",
      CYRNEL_API_KEY: "admin-key-for-the-issuer-test",
    },
  });
});

afterAll(() => host?.stop());

it("an access token the unreachable issuer would have to vouch for is 503 issuer_unavailable, with Retry-After", async () => {
  const jwt = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJhIiwiZXhwIjo0MTAyNDQ0ODAwfQ.c2lnbmF0dXJl";
  const response = await host.request("GET", "/services", undefined, { authorization: `Bearer ${jwt}` });
  expect(response.status).toBe(503);
  expect(response.headers.get("retry-after")).toBe("5");
  const body = (await response.json()) as { code: string; error: string };
  expect(body.code).toBe("issuer_unavailable");
  expect(body.error).toContain("discovery document could not be read");
  expect(body.error).not.toContain(jwt);
  // The static key keeps working meanwhile.
  expect((await host.api("GET", "/services")).status).toBe(200);
});
