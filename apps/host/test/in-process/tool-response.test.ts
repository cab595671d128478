import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as openapi from "@cyrnel/openapi";
import * as typescriptIvm from "@cyrnel/typescript-ivm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callDigest } from "../../src/domain/processes/run-journal.js";
import { type InProcessHost, startInProcess } from "../support/in-process.js";

/**
 * `invoke(params, { withResponse: true })`: code gets the response's status and headers beside the body (a `link`
 * header to the next page, rate limits), from the real openapi adapter against a local upstream. `set-cookie` is
 * never passed on, and a header that quotes the service's secret is masked like any answer.
 */
const API_KEY = "k-7f3a9c1e5b2d";
let host: InProcessHost;
let upstream: Server;

const document = (url: string) =>
  JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Shop", version: "1" },
    servers: [{ url }],
    security: [{ key: [] }],
    components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Key" } } },
    paths: {
      "/items": {
        get: {
          operationId: "listItems",
          parameters: [{ name: "page", in: "query", schema: { type: "integer" } }],
          responses: {
            "200": {
              description: "A page of items",
              content: { "application/json": { schema: { type: "array", items: { type: "string" } } } },
            },
          },
        },
      },
    },
  });

beforeAll(async () => {
  upstream = createServer((request, response) => {
    const page = Number(new URL(request.url ?? "/", "http://x").searchParams.get("page") ?? "1");
    response.setHeader("content-type", "application/json");
    response.setHeader("link", `<https://shop.example/items?page=${page + 1}>; rel="next"`);
    response.setHeader("x-ratelimit-remaining", "41");
    response.setHeader("set-cookie", ["session=s3cr3t; HttpOnly", "other=1"]);
    response.setHeader("x-echo-key", `key ${request.headers["x-key"]}`);
    response.end(JSON.stringify([`item-${page}a`, `item-${page}b`]));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  host = await startInProcess({ builtins: [openapi, typescriptIvm] });
  expect((await host.api("POST", "/modules/typescript-ivm/enabled", { enabled: true })).status).toBe(200);
  const installed = await host.api("POST", "/services", { id: "shop", adapter: "openapi", definition: document(url) });
  expect(installed.status, installed.text).toBe(201);
  expect((await host.api("PATCH", "/services/shop/secrets", { key: API_KEY })).status).toBe(200);
  expect((await host.api("POST", "/services/shop/enabled", { enabled: true })).status).toBe(200);
});
afterAll(async () => {
  await host?.stop();
  upstream?.close();
});

describe("a tool call's whole response", () => {
  it("is what code asking withResponse gets: status, lower-case headers (no set-cookie, secrets masked), body", async () => {
    const created = await host.api("POST", "/processes", {
      block: true,
      typecheck: true,
      code: `
        const first = await cyrnel.services.shop.tools.listItems.invoke({ page: 1 }, { withResponse: true });
        const next = Number(/page=(\\d+)>; rel="next"/.exec(first.headers.link ?? "")?.[1]);
        const second = await cyrnel.services.shop.tools.listItems.invoke({ page: next });
        cyrnel.output({ first, second });
      `,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.exitState, created.body.error).toBe("success");
    const output = (await host.api("GET", `/processes/${created.body.id}/output`)).body;
    expect(output.second).toEqual(["item-2a", "item-2b"]);
    expect(output.first).toMatchObject({
      status: 200,
      body: ["item-1a", "item-1b"],
      headers: {
        "content-type": "application/json",
        link: '<https://shop.example/items?page=2>; rel="next"',
        "x-ratelimit-remaining": "41",
      },
    });
    expect(output.first.headers).not.toHaveProperty("set-cookie");
    expect(output.first.headers["x-echo-key"]).not.toContain(API_KEY);
    expect(output.first.headers["x-echo-key"]).toMatch(/^key /);
  });

  it("is what a direct invoke asking withResponse gets; without it, the body alone", async () => {
    const whole = await host.api("POST", "/tools/shop/listItems/invoke", {
      parameters: { page: 5 },
      withResponse: true,
    });
    expect(whole.status, whole.text).toBe(200);
    expect(whole.body.result).toMatchObject({ status: 200, body: ["item-5a", "item-5b"] });
    expect(whole.body.result.headers.link).toContain("page=6");
    const plain = await host.api("POST", "/tools/shop/listItems/invoke", { parameters: { page: 5 } });
    expect(plain.body.result).toEqual(["item-5a", "item-5b"]);
  });

  it("is part of a journaled call's identity: a resumed run asking otherwise diverges instead of getting a body", () => {
    const call = { serviceId: "shop", toolId: "listItems", parameters: { page: 1 } };
    expect(callDigest({ ...call, withResponse: true })).not.toBe(callDigest(call));
    expect(callDigest({ ...call, withResponse: false })).toBe(callDigest(call));
  });
});
