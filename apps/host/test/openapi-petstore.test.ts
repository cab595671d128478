import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";

/**
 * The real petstore documents of @readme/oas-examples (Swagger 2.0, OpenAPI
 * 3.0 and 3.1) through the whole host: install, point `baseUrl` at a local
 * server, store both of its secrets (an apiKey header and an oauth2 token),
 * enable, and call tools over HTTP and from process code. The local server
 * records the exact requests the bundled openapi adapter sends.
 */
const API_KEY = "petstore-api-key-81c2";
const ACCESS_TOKEN = "petstore-oauth-token-f00d";
const examples = (version: string) =>
  readFileSync(createRequire(import.meta.url).resolve(`@readme/oas-examples/${version}/json/petstore.json`), "utf8");

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let host: TestHost;
let upstream: Server;
let upstreamUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      if (req.url === "/v2/pet/404") return send(404, { code: 1, type: "error", message: "Pet not found" });
      if (req.url?.startsWith("/v2/pet/findByStatus")) return send(200, [{ id: 1, name: "Rex", photoUrls: [] }]);
      if (req.method === "GET" && req.url?.startsWith("/v2/pet/")) {
        return send(200, { id: Number(req.url.slice("/v2/pet/".length)), name: "Rex", photoUrls: [], status: "sold" });
      }
      if (req.method === "POST" && req.url === "/v2/pet") return send(200, { id: 99, ...JSON.parse(body) });
      send(404, { message: "no such route" });
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  host = await startHost();
});

afterAll(async () => {
  await host?.stop();
  await new Promise((resolve) => upstream?.close(resolve));
});

beforeEach(() => {
  received.length = 0;
});

describe.each(["2.0", "3.0", "3.1"])("petstore %s through the host", (version) => {
  const id = `petstore${version.replace(".", "")}`;
  const invoke = (tool: string, parameters: Record<string, unknown>) =>
    host.api("POST", `/tools/${id}/${tool}/invoke`, { parameters });

  it("installs, takes its config and both secrets, and enables", async () => {
    const installed = await host.api("POST", "/services", { id, adapter: "openapi", definition: examples(version) });
    expect(installed.status, installed.text).toBe(201);
    expect(installed.body).toMatchObject({ id, adapter: "openapi", enabled: false, toolCount: 20 });
    expect(Object.keys(installed.body.secretsSchema.properties).sort()).toEqual(["api_key", "petstore_auth"]);

    const config = await host.api("PATCH", `/services/${id}/config`, { baseUrl: `${upstreamUrl}/v2` });
    expect(config.status, config.text).toBe(200);
    const secrets = await host.api("PATCH", `/services/${id}/secrets`, {
      api_key: API_KEY,
      petstore_auth: { accessToken: ACCESS_TOKEN },
    });
    expect(secrets.status, secrets.text).toBe(200);
    expect(secrets.body.set.sort()).toEqual(["api_key", "petstore_auth"]);
    expect(secrets.text).not.toContain(API_KEY);

    const enabled = await host.api("POST", `/services/${id}/enabled`, { enabled: true });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body.enabled).toBe(true);
  });

  it("calls getPetById with the api_key header and returns the parsed body", async () => {
    const response = await invoke("getPetById", { petId: 7 });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ result: { id: 7, name: "Rex", photoUrls: [], status: "sold" } });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: "GET", url: "/v2/pet/7" });
    expect(received[0]!.headers.api_key).toBe(API_KEY);
    expect(received[0]!.headers.authorization).toBeUndefined();
  });

  it("serialises an array query parameter as repeated keys (form, explode)", async () => {
    const response = await invoke("findPetsByStatus", { status: ["available", "sold"] });
    expect(response.status, response.text).toBe(200);
    expect(received[0]!.url).toBe("/v2/pet/findByStatus?status=available&status=sold");
  });

  it("rejects bad parameters before any request is sent", async () => {
    const response = await invoke("findPetsByStatus", { status: ["lost"] });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("validation_failed");
    expect(received).toHaveLength(0);
  });

  it("sends addPet's JSON body with the oauth2 token, from process code", async () => {
    const code = `const pet = await cyrnel.services.${id}.tools.addPet.invoke({ body: { name: "Fido", photoUrls: ["https://example.com/fido.png"], status: "available" } });
cyrnel.output({ pet });`;
    const response = await host.api("POST", "/processes", { code, block: true });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({ exitState: "success", error: null });
    expect(response.body.output.pet).toEqual({
      id: 99,
      name: "Fido",
      photoUrls: ["https://example.com/fido.png"],
      status: "available",
    });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: "POST", url: "/v2/pet" });
    expect(received[0]!.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(received[0]!.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(received[0]!.body)).toEqual({
      name: "Fido",
      photoUrls: ["https://example.com/fido.png"],
      status: "available",
    });
    expect(response.text).not.toContain(ACCESS_TOKEN);
  });

  it("turns an upstream 404 into 502 adapter_error with the upstream status and body", async () => {
    const response = await invoke("getPetById", { petId: 404 });
    expect(response.status).toBe(502);
    expect(response.body.code).toBe("adapter_error");
    expect(response.body.error).toMatch(/→ 404 Not Found: \{.*"message":"Pet not found".*\}$/);
    expect(response.body.details).toMatchObject({ status: 404, body: { message: "Pet not found" } });
    expect(response.text).not.toContain(API_KEY);
  });
});
