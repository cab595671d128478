import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adapter } from "./support.js";

/**
 * An MCP server's HTTP answers follow the redirect rules every adapter
 * shares (the SDK's fetchFollowingRedirects): a redirect to another origin
 * is refused, so the headers that carry a service's secrets never reach it.
 */
let elsewhere: Server;
let redirecting: Server;
const reached: string[] = [];

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
let elsewhereUrl = "";
let redirectingUrl = "";

beforeAll(async () => {
  elsewhere = createServer((request, response) => {
    reached.push(`${request.method} ${request.url} ${request.headers.authorization ?? ""}`);
    response.writeHead(404).end();
  });
  elsewhereUrl = await listen(elsewhere);
  redirecting = createServer((_request, response) =>
    response.writeHead(307, { location: `${elsewhereUrl}/mcp` }).end(),
  );
  redirectingUrl = await listen(redirecting);
});
afterAll(() => {
  elsewhere.close();
  redirecting.close();
});

describe("redirects of an MCP server over HTTP", () => {
  it("refuses one to another origin, and nothing reaches it", async () => {
    const { adapter: mcp } = await adapter();
    const install = mcp.generateDefinition(JSON.stringify({ transport: "http", url: `${redirectingUrl}/mcp` }));
    await expect(install).rejects.toThrow(`redirect to another origin (${elsewhereUrl}) refused`);
    expect(reached).toEqual([]);
    await mcp.teardown();
  });
});
