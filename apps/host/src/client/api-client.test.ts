import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, CyrnelApi } from "./api-client.js";

/**
 * The CLI and `cyrnel mcp` (stdio) put ids they were given (by an operator,
 * or by a model over MCP) into request paths. `fetch` parses URLs the WHATWG
 * way, which resolves `..` and `%2e%2e` segments, so an id like `..` would
 * send the request to a different route of the host.
 */
let url: string;
const received: string[] = [];
const server = createServer((request, response) => {
  received.push(`${request.method} ${request.url}`);
  response.writeHead(200, { "content-type": "application/json" });
  response.end("{}");
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("CyrnelApi paths", () => {
  it.each(["..", ".", "%2e%2e", "%2E.", encodeURIComponent("..")])(
    "refuses the id %s as a path segment without sending anything",
    async (id) => {
      received.length = 0;
      const api = new CyrnelApi(url, null);
      const error = await api.json("GET", `/tools/${id}/${id}/docs`).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe("bad_request");
      expect((error as ApiError).message).toContain("dot segment");
      expect(received).toEqual([]);
    },
  );

  it("sends ordinary ids as written", async () => {
    received.length = 0;
    await new CyrnelApi(url, null).json("GET", `/tools/${encodeURIComponent("a.b")}/x_1/docs`);
    expect(received).toEqual(["GET /tools/a.b/x_1/docs"]);
  });
});
