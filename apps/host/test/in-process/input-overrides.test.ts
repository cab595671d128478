import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryDatabase } from "../support/database.js";
import { type InProcessHost, startInProcess } from "../support/in-process.js";

/**
 * An operator's override of a tool's input constraints, on the real Petstore document, whose `getOrderById` caps
 * `orderId` at 10 although the API serves higher ids: a local upstream stands in for the API and answers any order.
 */
let host: InProcessHost;
let upstream: Server;
const received: string[] = [];
const document = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve("@readme/oas-examples/3.0/json/petstore.json"), "utf8"),
);
const definitionFor = (version: string, url: string) =>
  JSON.stringify({ ...document, info: { ...document.info, version }, servers: [{ url }] });
const LIFT_MAXIMUM = { properties: { orderId: { maximum: null } } };

const invoke = (orderId: unknown) =>
  host.api("POST", "/tools/petstore/getOrderById/invoke", { parameters: { orderId } });
const orderIdSchema = async () =>
  (await host.api("GET", "/tools/petstore/getOrderById")).body.inputSchema.properties.orderId;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    received.push(`${request.method} ${request.url}`);
    const id = Number(/\/store\/order\/(\d+)$/.exec(request.url ?? "")?.[1]);
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify({ id, petId: 1, quantity: 1, status: "placed", complete: false }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v2`;
  host = await startInProcess();
  const installed = await host.api("POST", "/services", {
    id: "petstore",
    adapter: "openapi",
    definition: definitionFor("1", url),
    enabled: true,
  });
  expect(installed.status, installed.text).toBe(201);
  // The update below changes only the document's version: the same URL.
  (globalThis as { petstoreUrl?: string }).petstoreUrl = url;
});

afterAll(async () => {
  await host?.stop();
  upstream?.close();
});

describe("a tool's input constraints, overridden where the API's document is wrong", () => {
  it("refuses what the document forbids, saying the constraint is the document's and how an operator lifts it", async () => {
    expect(await orderIdSchema()).toMatchObject({ minimum: 1, maximum: 10 });
    const refused = await invoke(101);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("validation_failed");
    expect(refused.body.error).toBe(
      "invalid parameters for petstore.getOrderById: \"orderId\" must be <= 10 (constraints of the API's document; nothing was sent. If the API accepts these parameters, an operator can override the tool's input constraints: PUT /tools/petstore/getOrderById/input-override)",
    );
    expect(received).toEqual([]);
    expect((await host.api("GET", "/tools/petstore/getOrderById")).body.inputOverride).toBeNull();
  });

  it("an operator's patch makes the call go through, and is recorded with the document's schema", async () => {
    const set = await host.api("PUT", "/tools/petstore/getOrderById/input-override", {
      patch: LIFT_MAXIMUM,
      reason: "the API serves orders past 10 (order 101 exists)",
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body.inputSchema.properties.orderId).not.toHaveProperty("maximum");
    expect(set.body.inputSchema.properties.orderId).toMatchObject({ type: "integer", minimum: 1 });
    expect(set.body.inputOverride).toMatchObject({
      patch: LIFT_MAXIMUM,
      reason: "the API serves orders past 10 (order 101 exists)",
      setBy: "bootstrap",
    });
    expect(Date.parse(set.body.inputOverride.setAt)).not.toBeNaN();
    expect(set.body.inputOverride.documentInputSchema.properties.orderId).toMatchObject({ maximum: 10 });
    const rows = await queryDatabase(host.dataDir, "select service_id, tool_id, reason from tool_input_overrides");
    expect(rows).toEqual([
      { service_id: "petstore", tool_id: "getOrderById", reason: "the API serves orders past 10 (order 101 exists)" },
    ]);

    const order = await invoke(101);
    expect(order.status, order.text).toBe(200);
    expect(order.body.result).toMatchObject({ id: 101, status: "placed" });
    expect(received).toEqual(["GET /v2/store/order/101"]);
    // The rest of the document's constraints still hold, and the message says they were overridden.
    const below = await invoke(0);
    expect(below.status).toBe(400);
    expect(below.body.error).toBe(
      'invalid parameters for petstore.getOrderById: "orderId" must be >= 1 (constraints of the API\'s document as an operator overrode them; nothing was sent)',
    );
    // Every reader sees the patched schema: the tool lists with schemas too.
    const listed = await host.api("GET", "/tools?serviceId=petstore&include=schemas&limit=100");
    const tool = listed.body.items.find((item: { id: string }) => item.id === "getOrderById");
    expect(tool.inputSchema.properties.orderId).not.toHaveProperty("maximum");
  });

  it("a second override replaces the first (applied to the document's schema, not stacked)", async () => {
    const set = await host.api("PUT", "/tools/petstore/getOrderById/input-override", {
      patch: { properties: { orderId: { maximum: 1000 } } },
      reason: "ids go up to 1000",
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body.inputSchema.properties.orderId).toMatchObject({ minimum: 1, maximum: 1000 });
    expect(set.body.inputOverride.documentInputSchema.properties.orderId).toMatchObject({ maximum: 10 });
    expect((await invoke(1001)).status).toBe(400);
    expect((await invoke(999)).status).toBe(200);
  });

  it("refuses a patch that leaves no usable schema, and changes nothing", async () => {
    for (const patch of [{ type: 5 }, { properties: { orderId: { maximum: "ten" } } }]) {
      const refused = await host.api("PUT", "/tools/petstore/getOrderById/input-override", {
        patch,
        reason: "a mistake",
      });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.error).toMatch(
        /^the patched input schema of petstore\.getOrderById is not a JSON Schema the host can use: /,
      );
    }
    const notAnObject = await host.api("PUT", "/tools/petstore/getOrderById/input-override", {
      patch: [],
      reason: "a mistake",
    });
    expect(notAnObject.status).toBe(400);
    const noReason = await host.api("PUT", "/tools/petstore/getOrderById/input-override", { patch: {} });
    expect(noReason.status).toBe(400);
    expect(await orderIdSchema()).toMatchObject({ maximum: 1000 });
  });

  it("survives an update of the service: applied to the new document's schema", async () => {
    const url = (globalThis as { petstoreUrl?: string }).petstoreUrl as string;
    const updated = await host.api("PATCH", "/services/petstore", { definition: definitionFor("2", url) });
    expect(updated.status, updated.text).toBe(200);
    expect(await orderIdSchema()).toMatchObject({ minimum: 1, maximum: 1000 });
    expect((await invoke(999)).status).toBe(200);
  });

  it("removed, the document's schema is back; removing again is a 404", async () => {
    const removed = await host.api("DELETE", "/tools/petstore/getOrderById/input-override");
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.inputOverride).toBeNull();
    expect(removed.body.inputSchema.properties.orderId).toMatchObject({ minimum: 1, maximum: 10 });
    expect((await invoke(101)).status).toBe(400);
    const again = await host.api("DELETE", "/tools/petstore/getOrderById/input-override");
    expect(again.status).toBe(404);
    expect(again.body.error).toBe("tool petstore.getOrderById has no input override");
    expect((await host.api("PUT", "/tools/petstore/nope/input-override", { patch: {}, reason: "x" })).status).toBe(404);
  });

  it("goes with its service", async () => {
    const set = await host.api("PUT", "/tools/petstore/getOrderById/input-override", {
      patch: LIFT_MAXIMUM,
      reason: "again",
    });
    expect(set.status).toBe(200);
    expect((await host.api("DELETE", "/services/petstore")).status).toBe(204);
    expect(await queryDatabase(host.dataDir, "select * from tool_input_overrides")).toEqual([]);
  });
});
