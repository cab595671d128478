import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { instantiate } from "../src/index.js";
import { readExample } from "./helpers/examples.js";
import { FakeHost, rejection } from "./helpers/host.js";
import { closedPort, json, type Recorded, startServer, type TestServer } from "./helpers/server.js";

/**
 * invoke against a real HTTP server on 127.0.0.1: what arrives on the wire
 * (method, path, raw query, headers, cookies, body bytes) and what comes
 * back (2xx bodies, non-2xx errors, timeouts, refused connections).
 */

let server: TestServer;
let host: FakeHost;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
  server.handle((_request, response) => json(response, 200, { ok: true }));
});

/** The id of the tool for `method` and `path` on an installed service. */
function toolId(serviceId: string, method: string, path: string): string {
  const tool = host.definitions.get(serviceId)!.tools.find((candidate) => {
    const domain = candidate.adapterDomain as { method: string; path: string };
    return domain.method === method && domain.path === path;
  });
  if (!tool) throw new Error(`test: no tool for ${method} ${path} on ${serviceId}`);
  return tool.id;
}

function last(): Recorded {
  const request = server.requests.at(-1);
  if (!request) throw new Error("the server received no request");
  return request;
}

async function multipartParts(request: Recorded): Promise<[string, string, string | null][]> {
  const form = await new Response(request.body, {
    headers: { "content-type": String(request.headers["content-type"]) },
  }).formData();
  const parts: [string, string, string | null][] = [];
  for (const [name, value] of form.entries())
    parts.push(typeof value === "string" ? [name, value, null] : [name, await value.text(), value.name]);
  return parts;
}

describe("petstore (OpenAPI 3.0)", () => {
  beforeAll(async () => {
    host = new FakeHost(instantiate());
    await host.install(
      "petstore",
      readExample("3.0/json/petstore.json"),
      { baseUrl: `${server.url}/v2` },
      {
        api_key: "special-key",
        petstore_auth: { accessToken: "oauth-token" },
      },
    );
  });

  it("GET with a path parameter, an api key header and the parsed JSON result", async () => {
    server.handle((_request, response) => json(response, 200, { id: 5, name: "Rex", photoUrls: [] }));
    const result = await host.invoke("petstore", "getPetById", { petId: 5 });
    expect(result).toEqual({ id: 5, name: "Rex", photoUrls: [] });
    const request = last();
    expect(request.method).toBe("GET");
    expect(request.target).toBe("/v2/pet/5");
    expect(request.headers.api_key).toBe("special-key");
    expect(request.headers.accept).toBe("application/json, application/xml");
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body.length).toBe(0);
  });

  it("exploded array query parameters and an OAuth2 access token", async () => {
    await host.invoke("petstore", "findPetsByStatus", { status: ["available", "pending"] });
    expect(last().target).toBe("/v2/pet/findByStatus?status=available&status=pending");
    expect(last().headers.authorization).toBe("Bearer oauth-token");
  });

  it("a JSON request body, byte for byte", async () => {
    server.handle((_request, response) => json(response, 200, { id: 1 }));
    await host.invoke("petstore", "addPet", {
      body: { name: "Rex", photoUrls: ["https://x/1.png"], status: "available" },
    });
    const request = last();
    expect(request.method).toBe("POST");
    expect(request.target).toBe("/v2/pet");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.body.toString("utf8")).toBe('{"name":"Rex","photoUrls":["https://x/1.png"],"status":"available"}');
  });

  it("an urlencoded form body", async () => {
    await host.invoke("petstore", "updatePetWithForm", { petId: 9, body: { name: "Rex Jr", status: "sold" } });
    const request = last();
    expect(request.target).toBe("/v2/pet/9");
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(request.body.toString("utf8")).toBe("name=Rex+Jr&status=sold");
  });

  it("a multipart body with a file part", async () => {
    await host.invoke("petstore", "uploadFile", { petId: 9, body: { additionalMetadata: "front", file: "PNG-BYTES" } });
    const request = last();
    expect(request.target).toBe("/v2/pet/9/uploadImage");
    expect(String(request.headers["content-type"])).toMatch(/^multipart\/form-data; boundary=/);
    expect(await multipartParts(request)).toEqual([
      ["additionalMetadata", "front", null],
      ["file", "PNG-BYTES", "file"],
    ]);
  });

  it("a header parameter next to OAuth2", async () => {
    server.handle((_request, response) => {
      response.writeHead(204);
      response.end();
    });
    expect(await host.invoke("petstore", "deletePet", { petId: 3, api_key: "header-param" })).toBeNull();
    expect(last().method).toBe("DELETE");
    expect(last().headers.api_key).toBe("header-param");
    expect(last().headers.authorization).toBe("Bearer oauth-token");
  });

  it("operations without security send no credentials", async () => {
    await host.invoke("petstore", "loginUser", { username: "a b", password: "p&q" });
    expect(last().target).toBe("/v2/user/login?username=a%20b&password=p%26q");
    expect(last().headers.authorization).toBeUndefined();
    expect(last().headers.api_key).toBeUndefined();
  });

  it("text responses come back as text", async () => {
    server.handle((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end("logged out");
    });
    expect(await host.invoke("petstore", "logoutUser")).toBe("logged out");
  });

  it("non-2xx → an Error with the status, the parsed body and a message naming method and URL", async () => {
    server.handle((_request, response) => json(response, 404, { code: 1, message: "Pet not found" }));
    const error = await rejection(host.invoke("petstore", "getPetById", { petId: 404 }));
    expect(error.message).toBe(`GET ${server.url}/v2/pet/404 → 404 Not Found`);
    expect(error.status).toBe(404);
    expect(error.body).toEqual({ code: 1, message: "Pet not found" });
  });

  it("non-2xx with a text body", async () => {
    server.handle((_request, response) => {
      response.writeHead(503, { "content-type": "text/plain" });
      response.end("try later");
    });
    const error = await rejection(host.invoke("petstore", "getInventory"));
    expect(error).toMatchObject({
      message: `GET ${server.url}/v2/store/inventory → 503 Service Unavailable`,
      status: 503,
      body: "try later",
    });
  });

  it("invalid JSON with a JSON content type comes back as text", async () => {
    server.handle((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{not json");
    });
    expect(await host.invoke("petstore", "getInventory")).toBe("{not json");
  });
});

describe("parameter styles on the wire (parameters-style.json)", () => {
  const primitive = "blue";
  const array = ["blue", "black", "brown"];
  const object = { name: "R 1", description: "x/y" };

  beforeAll(async () => {
    host = new FakeHost(instantiate());
    await host.install("styles", readExample("3.0/json/parameters-style.json"), { baseUrl: server.url });
  });

  it.each([
    [
      "query_standard",
      "/anything/query?primitive=blue&array=blue&array=black&array=brown&name=R%201&description=x%2Fy",
    ],
    [
      "query_form_nonExploded",
      "/anything/query/form?primitive=blue&array=blue,black,brown&object=name,R%201,description,x%2Fy",
    ],
    [
      "query_form_exploded",
      "/anything/query/form?primitive=blue&array=blue&array=black&array=brown&name=R%201&description=x%2Fy",
    ],
    [
      "query_spaceDelimited_nonExploded",
      "/anything/query/spaceDelimited?array=blue%20black%20brown&object=name%20R%201%20description%20x%2Fy",
    ],
    [
      "query_pipeDelimited_nonExploded",
      "/anything/query/pipeDelimited?array=blue%7Cblack%7Cbrown&object=name%7CR%201%7Cdescription%7Cx%2Fy",
    ],
    ["query_deepObject_nonExploded", "/anything/query/deepObject?object[name]=R%201&object[description]=x%2Fy"],
    ["paths_standard", "/anything/path/blue/blue,black,brown/name,R%201,description,x%2Fy"],
    [
      "paths_matrix_nonExploded",
      "/anything/path/matrix/;primitive=blue/;array=blue,black,brown/;object=name,R%201,description,x%2Fy",
    ],
    [
      "paths_matrix_exploded",
      "/anything/path/matrix/;primitive=blue/;array=blue;array=black;array=brown/;name=R%201;description=x%2Fy",
    ],
    ["paths_label_nonExploded", "/anything/path/label/.blue/.blue,black,brown/.name,R%201,description,x%2Fy"],
    ["paths_label_exploded", "/anything/path/label/.blue/.blue.black.brown/.name=R%201.description=x%2Fy"],
    ["paths_simple_exploded", "/anything/path/simple/blue/blue,black,brown/name=R%201,description=x%2Fy"],
  ])("%s → %s", async (toolId, target) => {
    const tool = host.definitions.get("styles")!.tools.find((candidate) => candidate.id === toolId)!;
    const properties = Object.keys(tool.inputSchema.properties as object);
    const values: Record<string, unknown> = { primitive, array, object };
    await host.invoke("styles", toolId, Object.fromEntries(properties.map((key) => [key, values[key]])));
    expect(last().target).toBe(target);
  });

  it.each([
    ["headers_simple_nonExploded", "blue", "blue,black,brown", "name,R 1,description,x/y"],
    ["headers_simple_exploded", "blue", "blue,black,brown", "name=R 1,description=x/y"],
  ])("%s sends simple-style headers", async (toolId, p, a, o) => {
    await host.invoke("styles", toolId, { primitive, array, object });
    expect([last().headers.primitive, last().headers.array, last().headers.object]).toEqual([p, a, o]);
  });

  it.each([
    ["cookies_form_nonExploded", "primitive=blue; array=blue,black,brown; object=name,R%201,description,x%2Fy"],
    ["cookies_form_exploded", "primitive=blue; array=blue; array=black; array=brown; name=R%201; description=x%2Fy"],
  ])("%s sends form-style cookies", async (toolId, cookie) => {
    await host.invoke("styles", toolId, { primitive, array, object });
    expect(last().path).toBe("/cookies");
    expect(last().headers.cookie).toBe(cookie);
  });
});

describe("security schemes on the wire (security.json)", () => {
  const secrets = {
    apiKey_query: "query-secret-1",
    apiKey_header: "header-secret-2",
    apiKey_cookie: "cookie-secret-3",
    basic: { username: "ada", password: "lovelace" },
    bearer: "bearer-secret-4",
    bearer_jwt: "jwt-secret-5",
  };

  beforeAll(async () => {
    host = new FakeHost(instantiate());
    await host.install("secure", readExample("3.0/json/security.json"), { baseUrl: server.url }, secrets);
  });

  const idOf = (method: string, path: string) => toolId("secure", method, path);

  it.each<[string, string, (request: Recorded) => unknown, unknown]>([
    ["get", "/anything/apiKey", (r) => r.query, "apiKey=query-secret-1"],
    ["post", "/anything/apiKey", (r) => r.headers.cookie, "api_key=cookie-secret-3"],
    ["put", "/anything/apiKey", (r) => r.headers["x-api-key"], "header-secret-2"],
    [
      "post",
      "/anything/basic",
      (r) => r.headers.authorization,
      `Basic ${Buffer.from("ada:lovelace").toString("base64")}`,
    ],
    ["post", "/anything/bearer", (r) => r.headers.authorization, "Bearer bearer-secret-4"],
    ["put", "/anything/bearer", (r) => r.headers.authorization, "Bearer jwt-secret-5"],
    [
      "post",
      "/anything/no-auth",
      (r) => [r.headers.authorization, r.query, r.headers.cookie],
      [undefined, "", undefined],
    ],
    ["get", "/anything/optional-auth", (r) => r.query, "apiKey=query-secret-1"],
  ])("%s %s", async (method, path, pick, expected) => {
    await host.invoke("secure", idOf(method, path));
    expect(pick(last())).toEqual(expected);
  });

  it("an optional requirement ({}) sends nothing when its secret is not set", async () => {
    await host.configure("secure", { baseUrl: server.url }, {});
    try {
      await host.invoke("secure", idOf("get", "/anything/optional-auth"));
      expect(last().query).toBe("");
    } finally {
      await host.configure("secure", { baseUrl: server.url }, secrets);
    }
  });

  it("missing credentials fail before any request is made", async () => {
    await host.configure("secure", { baseUrl: server.url }, {});
    try {
      const error = await rejection(host.invoke("secure", idOf("post", "/anything/basic")));
      expect(error.message).toBe(`POST ${server.url}/anything/basic needs credentials: set the secret "basic"`);
      expect(server.requests).toHaveLength(0);
    } finally {
      await host.configure("secure", { baseUrl: server.url }, secrets);
    }
  });

  it("error messages never carry credentials, even those sent in the query", async () => {
    server.handle((_request, response) => json(response, 401, { error: "bad key" }));
    const error = await rejection(host.invoke("secure", idOf("get", "/anything/apiKey")));
    expect(last().query).toBe("apiKey=query-secret-1");
    expect(error.message).toBe(`GET ${server.url}/anything/apiKey → 401 Unauthorized`);
  });

  it("secrets echoed by the upstream service are scrubbed from results and error bodies", async () => {
    server.handle((request, response) => json(response, 200, { headers: request.headers, query: request.query }));
    const result = JSON.stringify(await host.invoke("secure", idOf("put", "/anything/apiKey")));
    expect(result).not.toContain("header-secret-2");
    expect(result).toContain("[redacted]");
    server.handle((request, response) => json(response, 400, { echo: request.query }));
    const error = await rejection(host.invoke("secure", idOf("get", "/anything/apiKey")));
    expect(error.body).toEqual({ echo: "apiKey=[redacted]" });
  });
});

describe("transport failures", () => {
  const document = (baseUrl: string) =>
    JSON.stringify({
      openapi: "3.0.3",
      info: { title: "Slow", version: "1" },
      servers: [{ url: baseUrl }],
      components: { securitySchemes: { key: { type: "apiKey", in: "query", name: "key" } } },
      security: [{ key: [] }],
      paths: {
        "/slow": {
          get: {
            operationId: "slow",
            parameters: [{ name: "q", in: "query", schema: { type: "string" } }],
            responses: { "200": { description: "ok" } },
          },
        },
      },
    });

  it("a timeout names method and URL, not the credentials", async () => {
    server.handle(() => {
      // never answer
    });
    const slowHost = new FakeHost(instantiate());
    await slowHost.install("slow", document(server.url), { timeoutMs: 150 }, { key: "timeout-secret" });
    // The message names the service's 150 ms, not the default: that is the proof it was that timer that fired.
    const error = await rejection(slowHost.invoke("slow", "slow", { q: "x" }));
    expect(error.message).toBe(`GET ${server.url}/slow?q=x timed out after 150 ms`);
    expect(last().query).toBe("q=x&key=timeout-secret");
  });

  it("teardown ends calls still in flight at once, naming method and URL", async () => {
    server.handle(() => {
      // never answer
    });
    const adapter = instantiate();
    const stoppingHost = new FakeHost(adapter);
    await stoppingHost.install("stopping", document(server.url), { timeoutMs: 60_000 }, { key: "teardown-secret" });
    const before = server.requests.length;
    const pending = rejection(stoppingHost.invoke("stopping", "slow", { q: "y" }));
    await expect.poll(() => server.requests.length).toBe(before + 1);
    // The call's own timeout is a minute away: only the teardown can end it with this message.
    await adapter.teardown();
    const error = await pending;
    expect(error.message).toBe(`GET ${server.url}/slow?q=y was canceled: the openapi adapter was stopped`);

    // A torn-down adapter set up again makes calls as before.
    server.handle((_request, response) => json(response, 200, { ok: true }));
    await adapter.setup({ config: {}, secrets: {}, logger: { debug() {}, info() {}, warn() {}, error() {} } });
    await stoppingHost.configure("stopping", {}, { key: "teardown-secret" });
    expect(await stoppingHost.invoke("stopping", "slow")).toEqual({ ok: true });
  });

  it("the call's signal (its run ended) ends the exchange at once and closes the upstream connection", async () => {
    let closed = false;
    server.handle((_request, response) => {
      response.socket?.on("close", () => {
        closed = true;
      });
      // never answer
    });
    const host = new FakeHost(instantiate());
    await host.install("waiting", document(server.url), { timeoutMs: 60_000 }, { key: "signal-secret" });
    const before = server.requests.length;
    const run = new AbortController();
    const pending = rejection(host.invoke("waiting", "slow", { q: "z" }, run.signal));
    await expect.poll(() => server.requests.length).toBe(before + 1);
    // The call's own timeout is a minute away: only the signal can end it now.
    run.abort("the run was killed");
    const error = await pending;
    expect(error.message).toBe(`GET ${server.url}/slow?q=z was canceled: the run was killed`);
    await expect.poll(() => closed).toBe(true);
  });

  it("a refused connection names method and URL, not the credentials", async () => {
    const port = await closedPort();
    const downHost = new FakeHost(instantiate());
    await downHost.install("down", document(`http://127.0.0.1:${port}`), {}, { key: "refused-secret" });
    const error = await rejection(downHost.invoke("down", "slow"));
    expect(error.message).toMatch(new RegExp(`^GET http://127\\.0\\.0\\.1:${port}/slow failed: .*ECONNREFUSED`));
    expect(error.message).not.toContain("refused-secret");
  });
});

describe("redirects", () => {
  let other: TestServer;
  beforeAll(async () => {
    other = await startServer();
    host = new FakeHost(instantiate());
    await host.install(
      "secure",
      readExample("3.0/json/security.json"),
      { baseUrl: server.url },
      { bearer: "redirect-secret-6" },
    );
  });
  afterAll(() => other.close());

  const redirectAway = (to: string) =>
    server.handle((request, response) => {
      if (request.path === "/anything/bearer") {
        response.writeHead(307, { location: "/moved" });
        response.end();
      } else if (request.path === "/moved") {
        response.writeHead(303, { location: to });
        response.end();
      }
    });

  it("refuses a redirect to another origin by default: nothing reaches it", async () => {
    redirectAway(`${other.url}/elsewhere`);
    const error = await rejection(host.invoke("secure", toolId("secure", "post", "/anything/bearer")));
    expect(error.message).toContain(`303 redirect to another origin (${other.url}) refused`);
    expect(error.message).toContain("followCrossOriginRedirects");
    expect(error.message).not.toContain("redirect-secret-6");
    expect(other.requests).toEqual([]);
  });

  it("with followCrossOriginRedirects, keeps credentials on the same origin and drops them across origins", async () => {
    await host.configure(
      "secure",
      { baseUrl: server.url, followCrossOriginRedirects: true },
      { bearer: "redirect-secret-6" },
    );
    redirectAway(`${other.url}/elsewhere`);
    expect(await host.invoke("secure", toolId("secure", "post", "/anything/bearer"))).toEqual({ ok: true });
    expect(server.requests.slice(-2).map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
      ["POST", "/anything/bearer", "Bearer redirect-secret-6"],
      ["POST", "/moved", "Bearer redirect-secret-6"],
    ]);
    expect(other.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
      ["GET", "/elsewhere", undefined],
    ]);
  });

  it("never follows a redirect to a link-local address (a cloud metadata service), even when allowed", async () => {
    redirectAway("http://169.254.169.254/latest/meta-data/");
    const error = await rejection(host.invoke("secure", toolId("secure", "post", "/anything/bearer")));
    expect(error.message).toContain("redirect to a link-local address (169.254.169.254) refused");
  });
});

describe("Swagger 2.0 petstore", () => {
  beforeAll(async () => {
    host = new FakeHost(instantiate());
    await host.install(
      "pets2",
      readExample("2.0/json/petstore.json"),
      { baseUrl: `${server.url}/v2` },
      { api_key: "k2" },
    );
  });

  it("formData parameters become an urlencoded body", async () => {
    await host.configure(
      "pets2",
      { baseUrl: `${server.url}/v2`, timeoutMs: 5000, headers: { "X-Client": "test" } },
      { petstore_auth: { accessToken: "t2" } },
    );
    await host.invoke("pets2", "updatePetWithForm", { petId: 7, body: { name: "A", status: "B" } });
    expect(last().headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(last().body.toString()).toBe("name=A&status=B");
    expect(last().headers["x-client"]).toBe("test");
  });

  it("a file parameter becomes a multipart file part", async () => {
    await host.invoke("pets2", "uploadFile", { petId: 7, body: { additionalMetadata: "m", file: "content" } });
    expect(await multipartParts(last())).toEqual([
      ["additionalMetadata", "m", null],
      ["file", "content", "file"],
    ]);
  });

  it("collectionFormat multi", async () => {
    await host.invoke("pets2", "findPetsByStatus", { status: ["available", "sold"] });
    expect(last().query).toBe("status=available&status=sold");
  });
});

describe("service lifecycle", () => {
  it("unknown services and tools throw; dehydrate forgets; hydrate replaces", async () => {
    const adapter = instantiate();
    host = new FakeHost(adapter);
    await host.install("pets", readExample("3.0/json/petstore.json"), { baseUrl: `${server.url}/a` });
    await expect(adapter.invoke({ serviceId: "nope", toolId: "getInventory", parameters: {} })).rejects.toThrow(
      'Unknown service "nope"',
    );
    await expect(adapter.invoke({ serviceId: "pets", toolId: "nope", parameters: {} })).rejects.toThrow(
      'Unknown tool "nope" on service "pets"',
    );

    await host.invoke("pets", "getOrderById", { orderId: 1 });
    expect(last().target).toBe("/a/store/order/1");
    await host.configure("pets", { baseUrl: `${server.url}/b` });
    await host.invoke("pets", "getOrderById", { orderId: 1 });
    expect(last().target).toBe("/b/store/order/1");

    await adapter.dehydrateService("pets");
    await adapter.dehydrateService("pets");
    await expect(
      adapter.invoke({ serviceId: "pets", toolId: "getOrderById", parameters: { orderId: 1 } }),
    ).rejects.toThrow(/Unknown service/);
  });

  it("hydrate rejects a service without a usable base URL, and foreign adapter data", async () => {
    const adapter = instantiate();
    const definition = await adapter.generateDefinition(readExample("2.0/json/petstore-minimal.json"));
    const tools = Object.fromEntries(definition.tools.map((t) => [t.id, { adapterDomain: t.adapterDomain }]));
    await expect(
      adapter.hydrateService({
        id: "x",
        adapterDomain: definition.adapterDomain,
        tools,
        config: { baseUrl: "/relative" },
        secrets: {},
      }),
    ).rejects.toThrow(/config\.baseUrl/);
    await expect(
      adapter.hydrateService({ id: "x", adapterDomain: { other: true }, tools, config: {}, secrets: {} }),
    ).rejects.toThrow(/not generated by this version/);
    await expect(
      adapter.hydrateService({
        id: "x",
        adapterDomain: definition.adapterDomain,
        tools: { t: { adapterDomain: {} } },
        config: {},
        secrets: {},
      }),
    ).rejects.toThrow(/Tool "t" was not generated/);
  });
});
