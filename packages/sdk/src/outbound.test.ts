import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchFollowingRedirects, forbiddenAddress } from "./outbound.js";

interface Seen {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
}

/** A real server answering `route(path)`: a redirect target, or 200 with the path. */
async function serve(route: (path: string) => string | null): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    seen.push({ path: request.url ?? "", method: request.method ?? "", headers: request.headers });
    const location = route(request.url ?? "");
    if (location === null) response.writeHead(200, { "content-type": "text/plain" }).end(request.url);
    else response.writeHead(302, { location }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

let target: Awaited<ReturnType<typeof serve>>;
let origin: Awaited<ReturnType<typeof serve>>;
let redirectTo = "";

beforeAll(async () => {
  target = await serve(() => null);
  origin = await serve((path) => (path === "/away" ? redirectTo : path === "/here" ? "/landed" : null));
});
afterAll(() => {
  target.server.close();
  origin.server.close();
});

const request = () => ({
  method: "GET",
  headers: new Headers({ authorization: "Bearer s3cret-token", "x-api-key": "k3y-value", accept: "text/plain" }),
});

describe("fetchFollowingRedirects", () => {
  it("follows a redirect on the same origin, credentials kept", async () => {
    const response = await fetchFollowingRedirects(`${origin.url}/here`, request());
    expect(await response.text()).toBe("/landed");
    expect(origin.seen.at(-1)?.headers.authorization).toBe("Bearer s3cret-token");
  });

  it("refuses a redirect to another origin by default, and nothing reaches it", async () => {
    redirectTo = `${target.url}/elsewhere`;
    const before = target.seen.length;
    const refused = fetchFollowingRedirects(`${origin.url}/away`, request(), {
      label: "GET the-service",
      allowHint: "turn it on to allow",
    });
    await expect(refused).rejects.toMatchObject({
      message: `GET the-service → 302 redirect to another origin (${target.url}) refused; turn it on to allow`,
      status: 302,
    });
    expect(target.seen.length).toBe(before);
  });

  it("allowed, follows it without the credential headers", async () => {
    redirectTo = `${target.url}/elsewhere`;
    const response = await fetchFollowingRedirects(`${origin.url}/away`, request(), {
      crossOriginRedirects: true,
      credentialHeaders: ["x-api-key"],
    });
    expect(await response.text()).toBe("/elsewhere");
    const headers = target.seen.at(-1)?.headers ?? {};
    expect(headers.authorization).toBeUndefined();
    expect(headers["x-api-key"]).toBeUndefined();
    expect(headers.accept).toBe("text/plain");
  });

  it.each([
    ["http://169.254.169.254/latest/meta-data/", "link-local"],
    ["http://[::ffff:169.254.169.254]/latest/meta-data/", "link-local"],
    ["http://[fe80::1]:8080/", "link-local"],
    ["http://[fd00:ec2::254]/latest/", "metadata"],
    ["http://100.100.100.200/latest/meta-data/", "metadata"],
  ])("never follows a redirect to %s, even when cross-origin redirects are allowed", async (to, kind) => {
    redirectTo = to;
    const refused = fetchFollowingRedirects(`${origin.url}/away`, request(), { crossOriginRedirects: true });
    await expect(refused).rejects.toThrow(`302 redirect to a ${kind} address`);
  });

  it("a POST that is redirected with 302 continues as GET without its body", async () => {
    redirectTo = "/landed";
    const response = await fetchFollowingRedirects(`${origin.url}/away`, {
      method: "POST",
      headers: new Headers({ "content-type": "application/json" }),
      body: "{}",
    });
    expect(await response.text()).toBe("/landed");
    expect(origin.seen.at(-1)?.method).toBe("GET");
    expect(origin.seen.at(-1)?.headers["content-type"]).toBeUndefined();
  });

  it("the caller's signal ends the exchange", async () => {
    const stop = new AbortController();
    stop.abort("the run ended");
    await expect(fetchFollowingRedirects(`${origin.url}/here`, { ...request(), signal: stop.signal })).rejects.toBe(
      "the run ended",
    );
  });
});

describe("forbiddenAddress", () => {
  it("judges names by what they resolve to", async () => {
    expect(await forbiddenAddress("localhost")).toBeNull();
    expect(await forbiddenAddress("127.0.0.1")).toBeNull();
    expect(await forbiddenAddress("[::ffff:a9fe:a9fe]")).toBe("link-local");
    expect(await forbiddenAddress("name.that.does.not.resolve.invalid")).toBeNull();
  });
});
