import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import AjvDraft7 from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoWeather } from "../../../examples/demo-weather/src/server.mjs";
import { startHost, type TestHost } from "./support/host.js";

/**
 * The MCP tools end to end: the official SDK client against the real host
 * (`/mcp` on Streamable HTTP, and `cyrnel mcp` on stdio), with the built-in
 * OpenAPI adapter serving the demo-weather API over local HTTP and the
 * built-in TypeScript sandbox running the code.
 */
const API_KEY = "mcp-test-key";
const bin = join(import.meta.dirname, "..", "bin", "cyrnel.js");

let host: TestHost;
let weather: Awaited<ReturnType<typeof startDemoWeather>>;

beforeAll(async () => {
  weather = await startDemoWeather();
  host = await startHost({ env: { CYRNEL_API_KEY: API_KEY } });
  const installed = await host.api("POST", "/services", {
    id: "weather",
    adapter: "openapi",
    url: `${weather.url}/openapi.json`,
    enabled: true,
  });
  expect(installed.status, installed.text).toBe(201);
  expect(installed.body).toMatchObject({ enabled: true });
  expect(installed.body.enableError).toBeUndefined();
});
afterAll(async () => {
  await host?.stop();
  await weather?.close();
});

async function httpClient(headers: Record<string, string> = { authorization: `Bearer ${API_KEY}` }) {
  const client = new Client({ name: "cyrnel-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), { requestInit: { headers } }));
  return client;
}

async function stdioClient(url: string, env: Record<string, string> = { CYRNEL_API_KEY: API_KEY }) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--no-node-snapshot", bin, "mcp", "--url", url],
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stderr: "pipe",
  });
  const stderr: string[] = [];
  transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")));
  const client = new Client({ name: "cyrnel-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr };
}

const TOOL_NAMES = [
  "get_process",
  "get_tool_docs",
  "get_types",
  "kill_process",
  "list_processes",
  "list_services",
  "run_code",
  "search_tools",
];

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === "text" ? part.text : "")).join("");

const FORECAST_PROGRAM = `
const cities = await cyrnel.services.weather.tools.listCities.invoke({ country: "NO" });
const forecasts = [];
for (const city of cities) {
  const forecast = await cyrnel.services.weather.tools.getForecast.invoke({ city: city.id, days: 2 });
  forecasts.push({ city: forecast.city.name, days: forecast.days.length, firstTempC: forecast.days[0].tempC });
}
console.log("checked", cities.length, "cities");
cyrnel.output({ forecasts });
`;

describe("/mcp on Streamable HTTP", () => {
  let client: Client;
  beforeAll(async () => {
    client = await httpClient();
  });
  afterAll(() => client?.close());

  it("without OAuth, answers 401 with a plain challenge and no protected resource metadata", async () => {
    const refused = await fetch(`${host.url}/mcp`, { method: "POST", body: "{}" });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="cyrnel"');
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const metadata = await fetch(`${host.url}${path}`);
      expect(metadata.status).toBe(404);
      expect(((await metadata.json()) as { code: string }).code).toBe("not_found");
    }
  });

  it("sends instructions and lists the eight tools, each with a description, as a list that never changes", async () => {
    expect(client.getInstructions()).toContain("run_code");
    // A fixed list: no client should wait for tools/list_changed.
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOL_NAMES);
    for (const tool of tools) expect(tool.description?.length).toBeGreaterThan(80);
    expect(tools.find((tool) => tool.name === "run_code")?.inputSchema.required).toEqual(["code"]);
  });

  it("lists services", async () => {
    const result = await call(client, "list_services");
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      services: [
        {
          id: "weather",
          name: "Demo Weather",
          description: "Deterministic forecasts for a few cities.",
          enabled: true,
          stale: false,
          toolCount: 3,
        },
      ],
    });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it("searches tools by several words, ranked, and within a service", async () => {
    const ranked = await call(client, "search_tools", { query: "daily forecast city" });
    const ids = (ranked.structuredContent as any).tools.map((tool: any) => tool.id);
    expect(ids[0]).toBe("getForecast");
    expect(ids).toContain("listCities");

    const all = await call(client, "search_tools", { query: "", serviceId: "weather", limit: 2 });
    expect((all.structuredContent as any).tools).toHaveLength(2);
    expect((all.structuredContent as any).tools[0]).toMatchObject({
      serviceId: "weather",
      effectivelyEnabled: true,
      policy: "allow",
    });

    const none = await call(client, "search_tools", { query: "submarine" });
    expect(none.structuredContent).toEqual({ tools: [] });
  });

  it("leaves tools that cannot be called out of a search unless includeDisabled, and finds ids with dots", async () => {
    const byId = await call(client, "search_tools", { query: "weather.getForecast" });
    expect((byId.structuredContent as any).tools[0]).toMatchObject({ id: "getForecast" });
    expect((await host.api("POST", "/tools/weather/getForecast/enabled", { enabled: false })).status).toBe(200);
    try {
      const found = await call(client, "search_tools", { query: "forecast" });
      expect((found.structuredContent as any).tools.map((tool: any) => tool.id)).not.toContain("getForecast");
      const all = await call(client, "search_tools", { query: "forecast", includeDisabled: true });
      expect((all.structuredContent as any).tools[0]).toMatchObject({ id: "getForecast", effectivelyEnabled: false });
    } finally {
      await host.api("POST", "/tools/weather/getForecast/enabled", { enabled: true });
    }
  });

  it("serves a tool's docs and the type declarations", async () => {
    const docs = await call(client, "get_tool_docs", { serviceId: "weather", toolId: "getForecast" });
    expect(docs.isError).toBeFalsy();
    expect(textOf(docs)).toContain("cyrnel.services.weather.tools.getForecast.invoke(");
    expect(textOf(docs)).toContain("city");

    const types = await call(client, "get_types");
    expect(types.isError).toBeFalsy();
    expect(textOf(types)).toContain("getForecast");
    expect(textOf(types)).toContain("listCities");
  });

  it("narrows get_types to services or tools, and expands one type in get_tool_docs", async () => {
    const one = await call(client, "get_types", { tools: ["weather/getForecast"] });
    expect(one.isError, textOf(one)).toBeFalsy();
    expect(textOf(one)).toContain("readonly getForecast:");
    expect(textOf(one)).not.toContain("readonly listCities:");
    const service = await call(client, "get_types", { serviceIds: ["weather"] });
    expect(textOf(service)).toContain("readonly listCities:");
    const missing = await call(client, "get_types", { serviceIds: ["stocks"] });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('service "stocks" not found (code: not_found)');

    const expanded = await call(client, "get_tool_docs", {
      serviceId: "weather",
      toolId: "getForecast",
      expand: "City",
    });
    expect(expanded.isError, textOf(expanded)).toBeFalsy();
    expect(textOf(expanded)).toContain("# `weather.getForecast`: `City`");
    expect(textOf(expanded)).toContain("type City = {");
    const unknown = await call(client, "get_tool_docs", {
      serviceId: "weather",
      toolId: "getForecast",
      expand: "Nope",
    });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain(
      'type "Nope" is not on the page of weather.getForecast; its types: Input, Output, City',
    );
  });

  it("runs one program that calls tools and answers output, stdout and the process id at once", async () => {
    const result = await call(client, "run_code", { code: FORECAST_PROGRAM });
    expect(result.isError, textOf(result)).toBeFalsy();
    const process = result.structuredContent as any;
    expect(process).toMatchObject({
      state: "idle",
      exitState: "success",
      error: null,
      stdout: "checked 2 cities\n",
      stderr: "",
      output: {
        forecasts: [
          { city: "Oslo", days: 2, firstTempC: expect.any(Number) },
          { city: "Tromsø", days: 2, firstTempC: expect.any(Number) },
        ],
      },
    });
    expect(process.durationMs).toBeGreaterThanOrEqual(0);
    expect(process.calls).toEqual({
      count: 3,
      failed: 0,
      byTool: { "weather.listCities": { count: 1, failed: 0 }, "weather.getForecast": { count: 2, failed: 0 } },
    });

    const again = await call(client, "get_process", { id: process.id });
    expect(again.isError).toBeFalsy();
    expect(again.structuredContent).toEqual(process);
    expect((await host.api("GET", `/processes/${process.id}/output`)).body).toEqual(process.output);
  });

  it("flags a failing program as a tool error that still carries the details", async () => {
    const result = await call(client, "run_code", {
      code: 'console.warn("about to fail");\nthrow new Error("no forecast for Atlantis");',
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      id: expect.any(Number),
      exitState: "failed",
      error: expect.stringContaining("no forecast for Atlantis"),
      stderr: expect.stringContaining("about to fail"),
      output: {},
    });
  });

  it("type-checks the program first: a type error ends it at once, listed with its line and column", async () => {
    const result = await call(client, "run_code", {
      code: `const forecast = await cyrnel.services.weather.tools.getForecast.invoke({ days: 2 });\ncyrnel.output({ forecast });`,
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ exitState: "failed", output: {}, stdout: "", stderr: "" });
    expect((result.structuredContent as any).error).toMatch(
      /^Type check failed with 1 type error, so the code did not run:\ncode\.ts:1:73 TS2345 .*Property 'city' is missing/,
    );
  });

  it("reports tool errors inside the program with status and code", async () => {
    const result = await call(client, "run_code", {
      code: `try {
  await cyrnel.services.weather.tools.getForecast.invoke({ city: "atlantis" });
} catch (error) {
  cyrnel.output({ status: error.status, code: error.code });
}
try {
  await cyrnel.services.weather.tools.getForecast.invoke({ days: 2 });
} catch (error) {
  cyrnel.output({ missingCity: error.code });
}`,
      // The missing city is the gate's to refuse here; checked first, the code would not run at all.
      typecheck: false,
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect((result.structuredContent as any).output).toEqual({
      status: 502,
      code: "adapter_error",
      missingCity: "validation_failed",
    });
    expect((result.structuredContent as any).calls).toEqual({
      count: 2,
      failed: 2,
      byTool: { "weather.getForecast": { count: 2, failed: 2 } },
    });
  });

  it("shows a process suspended on an approval, and the denial its code then sees", async () => {
    const policy = await host.api("PUT", "/services/weather/policy", {
      rules: [{ tools: "getForecast", action: "ask" }],
    });
    expect(policy.status, policy.text).toBe(200);
    try {
      const found = await call(client, "search_tools", { query: "forecast", serviceId: "weather" });
      expect((found.structuredContent as any).tools[0]).toMatchObject({ id: "getForecast", policy: "ask" });
      const started = await call(client, "run_code", {
        code: `try {
  await cyrnel.services.weather.tools.getForecast.invoke({ city: "oslo", days: 1 });
} catch (error) {
  cyrnel.output({ code: error.code, message: error.message });
}`,
        wait: false,
      });
      const { id } = started.structuredContent as any;
      let suspended: any;
      await expect
        .poll(async () => {
          suspended = (await call(client, "get_process", { id })).structuredContent;
          return suspended.state;
        }, {})
        .toBe("suspended");
      expect(suspended.pendingApprovalIds).toHaveLength(1);
      // What the call waits for: the tool, its parameters and until when.
      expect(suspended.pendingApprovals).toEqual([
        {
          id: suspended.pendingApprovalIds[0],
          tool: "weather.getForecast",
          parameters: { city: "oslo", days: 1 },
          expiresAt: expect.any(String),
        },
      ]);
      expect(Date.parse(suspended.pendingApprovals[0].expiresAt)).toBeGreaterThan(Date.now());
      expect(suspended.next).toContain("waits for an operator to approve or deny it");
      const denied = await host.api("POST", `/approvals/${suspended.pendingApprovalIds[0]}/deny`, {
        reason: "no forecasts today",
      });
      expect(denied.status, denied.text).toBe(200);
      const done = (await call(client, "get_process", { id, wait: true })).structuredContent as any;
      expect(done).toMatchObject({ exitState: "success", output: { code: "approval_denied" } });
      expect(done.output.message).toContain("no forecasts today");
      expect(done.calls).toEqual({ count: 1, failed: 1, byTool: { "weather.getForecast": { count: 1, failed: 1 } } });
    } finally {
      await host.api("PUT", "/services/weather/policy", {});
    }
  });

  it("stops a running process with kill_process, answers it ended, and answers an ended or unknown one", async () => {
    const started = await call(client, "run_code", {
      code: 'console.log("started"); await new Promise(() => {});',
      timeoutMs: 600_000,
      wait: false,
    });
    const id = (started.structuredContent as { id: number }).id;
    await expect.poll(async () => (await host.api("GET", `/processes/${id}`)).body.state).toBe("running");
    const killed = await call(client, "kill_process", { id });
    expect(killed.isError, textOf(killed)).toBeFalsy();
    expect(killed.structuredContent).toMatchObject({ id, state: "idle", exitState: "canceled" });
    expect(typeof (killed.structuredContent as { stdout?: unknown }).stdout).toBe("string");
    expect((await host.api("GET", `/processes/${id}`)).body).toMatchObject({ state: "idle", exitState: "canceled" });
    // What a client checks the answer against: the listed output schema (compact: no bounds zod adds, no unions
    // of constants, no descriptions below the top) accepts it.
    const listed = (await client.listTools()).tools.find((tool) => tool.name === "kill_process")?.outputSchema;
    expect(listed?.properties?.state).toEqual({
      type: "string",
      enum: ["queued", "running", "suspended", "idle", "terminating"],
    });
    expect(JSON.stringify(listed)).not.toMatch(/minimum|"const"|patternProperties/);
    expect(JSON.stringify(listed?.properties)).not.toContain('"description"');
    const schema: Record<string, unknown> = { ...listed };
    delete schema.$schema;
    const valid = new AjvDraft7.default({ strict: false }).compile(schema);
    expect(valid(killed.structuredContent), JSON.stringify(valid.errors)).toBe(true);
    expect(valid({ id, state: "idle", exitState: "bogus" })).toBe(false);
    // Again: nothing to stop, the process as it is.
    const again = await call(client, "kill_process", { id });
    expect(again.isError).toBeFalsy();
    expect(again.structuredContent).toMatchObject({ id, state: "idle", exitState: "canceled" });
    const unknown = await call(client, "kill_process", { id: 999_999 });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain("not_found");
  });

  it("ends a program past its timeout with exitState timeout", async () => {
    const result = await call(client, "run_code", { code: "while (true) {}", timeoutMs: 300 });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ exitState: "timeout" });
  });

  it("sends progress notifications with the process id and its last stdout line", async () => {
    await expectProgress(client);
  });

  it("answers a megabyte of stdout and a large output within the text limit, and pages them back whole", async () => {
    await expectBoundedAndPaged(client);
  });

  it.each([
    [
      "an unknown tool id",
      "get_tool_docs",
      { serviceId: "weather", toolId: "getHoroscope" },
      /tool "getHoroscope" on service "weather" not found/,
    ],
    ["an unknown service", "get_tool_docs", { serviceId: "stocks", toolId: "quote" }, /service "stocks" not found/],
    [
      "an unknown service in a search",
      "search_tools",
      { query: "", serviceId: "stocks" },
      /service "stocks" not found/,
    ],
    ["an unknown process", "get_process", { id: 999_999 }, /process 999999 not found/],
    ["a page of an unknown process", "get_process", { id: 999_999, stream: "stdout" }, /process 999999 not found/],
  ])("answers %s as a tool error", async (_label, tool, args, message) => {
    const result = await call(client, tool, args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(message);
    expect(textOf(result)).toContain("code: not_found");
  });

  it("answers a page it cannot give as a tool error naming the problem", async () => {
    const run = await call(client, "run_code", { code: 'console.log("short")' });
    const id = (run.structuredContent as any).id;
    const noStream = await call(client, "get_process", { id, offset: 5 });
    expect(noStream.isError).toBe(true);
    expect(textOf(noStream)).toContain("offset and limit page a text: give stream too (code: bad_request)");
    const pastEnd = await call(client, "get_process", { id, stream: "stdout", offset: 7 });
    expect(pastEnd.isError).toBe(true);
    expect(textOf(pastEnd)).toContain(`offset 7 is past the end of the stdout of process ${id} (6 characters)`);
    const badStream = await call(client, "get_process", { id, stream: "stdin" });
    expect(badStream.isError).toBe(true);
    expect(textOf(badStream)).toContain("stream");
  });

  it.each([-5, 2 ** 31])("answers invalid arguments (timeoutMs %d) as a tool error", async (timeoutMs) => {
    const before = (await host.api("GET", "/processes?limit=1")).body.items[0]?.id;
    const result = await call(client, "run_code", { code: "x", timeoutMs });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("timeoutMs");
    expect((await host.api("GET", "/processes?limit=1")).body.items[0]?.id).toBe(before);
  });

  it("answers no_environment as a tool error while no environment is active", async () => {
    expect((await host.api("POST", "/modules/typescript-ivm/enabled", { enabled: false })).status).toBe(200);
    try {
      for (const [tool, args] of [
        ["run_code", { code: "cyrnel.output({ a: 1 })" }],
        ["get_tool_docs", { serviceId: "weather", toolId: "getForecast" }],
        ["get_types", {}],
      ] as const) {
        const result = await call(client, tool, args);
        expect(result.isError, tool).toBe(true);
        expect(textOf(result)).toContain("code: no_environment");
        expect(textOf(result)).toContain("operator");
      }
    } finally {
      expect((await host.api("POST", "/modules/typescript-ivm/enabled", { enabled: true })).status).toBe(200);
    }
    expect((await call(client, "run_code", { code: "cyrnel.output({ a: 1 })" })).isError).toBeFalsy();
  });
});

describe("/mcp access", () => {
  const post = (headers: Record<string, string>) =>
    fetch(`${host.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });

  it("needs the API key", async () => {
    const missing = await post({});
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ code: "unauthorized" });
    expect((await post({ authorization: "Bearer wrong" })).status).toBe(401);
    await expect(httpClient({})).rejects.toThrow();
    expect((await post({ authorization: `Bearer ${API_KEY}` })).status).toBe(200);
  });

  it("is stateless: GET and DELETE answer 405", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${host.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${API_KEY}`, accept: "text/event-stream" },
      });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
  });

  it("refuses browser origins other than loopback (DNS rebinding)", async () => {
    const foreign = await post({ authorization: `Bearer ${API_KEY}`, origin: "http://attacker.example" });
    expect(foreign.status).toBe(403);
    const local = await post({ authorization: `Bearer ${API_KEY}`, origin: "http://localhost:6274" });
    expect(local.status).toBe(200);
  });

  it("keeps the REST API and its response validation intact", async () => {
    expect((await host.api("GET", "/services/weather")).status).toBe(200);
    const document = (await host.api("GET", "/openapi.json")).body;
    expect(Object.keys(document.paths)).not.toContain("/mcp");
  });
});

describe("cyrnel mcp on stdio", () => {
  it("serves the same tools through a running host, with only protocol on stdout", async () => {
    const { client, stderr } = await stdioClient(host.url);
    try {
      expect(client.getInstructions()).toContain("run_code");
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(TOOL_NAMES);

      const services = await call(client, "list_services");
      expect((services.structuredContent as any).services.map((s: any) => s.id)).toEqual(["weather"]);

      const found = await call(client, "search_tools", { query: "forecast" });
      expect((found.structuredContent as any).tools[0]).toMatchObject({ serviceId: "weather", id: "getForecast" });

      const docs = await call(client, "get_tool_docs", { serviceId: "weather", toolId: "listCities" });
      expect(textOf(docs)).toContain("cyrnel.services.weather.tools.listCities.invoke(");
      expect(textOf(await call(client, "get_types"))).toContain("getForecast");
      const narrowed = textOf(await call(client, "get_types", { tools: ["weather/listCities"], serviceIds: [] }));
      expect(narrowed).toContain("readonly listCities:");
      expect(narrowed).not.toContain("readonly getForecast:");
      const city = await call(client, "get_tool_docs", { serviceId: "weather", toolId: "getForecast", expand: "City" });
      expect(textOf(city)).toContain("type City = {");

      const run = await call(client, "run_code", { code: FORECAST_PROGRAM });
      expect(run.isError, textOf(run)).toBeFalsy();
      expect(run.structuredContent).toMatchObject({ exitState: "success", stdout: "checked 2 cities\n" });
      const id = (run.structuredContent as any).id;
      expect((await call(client, "get_process", { id })).structuredContent).toEqual(run.structuredContent);

      const failed = await call(client, "run_code", { code: "throw new Error('boom')" });
      expect(failed.isError).toBe(true);
      expect(failed.structuredContent).toMatchObject({ exitState: "failed", error: expect.stringContaining("boom") });

      const unknown = await call(client, "get_tool_docs", { serviceId: "weather", toolId: "getHoroscope" });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toContain("code: not_found");
      const noService = await call(client, "search_tools", { query: "", serviceId: "stocks" });
      expect(textOf(noService)).toContain('service "stocks" not found');
    } finally {
      await client.close();
    }
    expect(stderr.join("")).toContain(`cyrnel mcp: serving over stdio for ${host.url}`);
  });

  it("sends progress with the process id and last stdout line, and pages large results", async () => {
    const { client } = await stdioClient(host.url);
    try {
      await expectProgress(client);
      await expectBoundedAndPaged(client);
    } finally {
      await client.close();
    }
  });

  it("turns a wrong API key and an unreachable host into tool errors", async () => {
    const wrongKey = await stdioClient(host.url, { CYRNEL_API_KEY: "wrong" });
    try {
      const result = await call(wrongKey.client, "list_services");
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("code: unauthorized");
    } finally {
      await wrongKey.client.close();
    }

    const down = await stdioClient("http://127.0.0.1:9", {});
    try {
      expect((await down.client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
      const result = await call(down.client, "run_code", { code: "1" });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("code: unreachable");
    } finally {
      await down.client.close();
    }
    expect(down.stderr.join("")).toContain("warning: cannot reach the cyrnel host at http://127.0.0.1:9");
  });
});

/** A program that prints a line every 50 ms until it is killed. */
const TICKING = 'for (let i = 0; ; i++) { console.log("tick " + i); await new Promise((r) => setTimeout(r, 50)); }';

/**
 * run_code with a progressToken on a program that never ends by itself: the
 * notifications must name the process (killing the id they name ends the
 * call) and, once it printed, its last stdout line.
 */
async function expectProgress(client: Client) {
  const messages: string[] = [];
  const values: number[] = [];
  let killed: Promise<unknown> | undefined;
  const result = (await client.callTool(
    { name: "run_code", arguments: { code: TICKING, timeoutMs: 600_000 } },
    undefined,
    {
      timeout: 600_000,
      onprogress: ({ progress, message }) => {
        values.push(progress);
        messages.push(message ?? "");
        const ticking = /^process (\d+): .*; last stdout line: tick \d+$/.exec(message ?? "");
        if (ticking && !killed) killed = host.api("POST", `/processes/${ticking[1]}/signals/kill`);
      },
    },
  )) as CallToolResult;
  expect((await killed) as any).toMatchObject({ status: 200 });
  const process = result.structuredContent as any;
  expect(process).toMatchObject({ state: "idle", exitState: "canceled", stdout: expect.stringMatching(/^tick 0\n/) });
  // The first notification comes when the process exists, before it printed anything.
  expect(messages[0]).toMatch(new RegExp(`^process ${process.id}: waiting for its end, \\d+ s so far$`));
  expect(messages.some((message) => message.startsWith(`process ${process.id}: `) && /tick \d+$/.test(message))).toBe(
    true,
  );
  for (let index = 1; index < values.length; index++) expect(values[index]).toBeGreaterThan(values[index - 1]!);
}

/** About a megabyte of stdout (with characters outside the BMP), a warning, and 100 KB of output. */
const LARGE_PROGRAM = `
const lines = [];
for (let i = 0; i < 10_000; i++) lines.push(String(i).padStart(5, "0") + " 🙂 " + "abcdefghij".repeat(9));
for (let i = 0; i < lines.length; i += 500) console.log(lines.slice(i, i + 500).join("\\n"));
console.warn("printed them all");
cyrnel.output({ rows: Array.from({ length: 2000 }, (_, i) => ({ i, name: "row " + i + "z".repeat(30) })) });
`;

/** Reads one of a process's texts page by page through get_process, from `offset` to the end. */
async function pages(client: Client, id: number, stream: string, offset: number): Promise<string> {
  let text = "";
  for (let next: number | null = offset; next !== null; ) {
    const result = await call(client, "get_process", { id, stream, offset: next });
    expect(result.isError, textOf(result)).toBeFalsy();
    const { page } = result.structuredContent as any;
    expect(page.offset).toBe(next);
    expect(page.text.length).toBeLessThanOrEqual(AGENT_TEXT_LIMIT);
    text += page.text;
    next = page.nextOffset;
  }
  return text;
}

const AGENT_TEXT_LIMIT = 60_000;

async function expectBoundedAndPaged(client: Client) {
  const result = await call(client, "run_code", { code: LARGE_PROGRAM });
  expect(result.isError, textOf(result).slice(0, 500)).toBeFalsy();
  const process = result.structuredContent as any;
  const stdout = (await host.api("GET", `/processes/${process.id}/stdout`)).text;
  const output = (await host.api("GET", `/processes/${process.id}/output`)).text;
  expect(stdout.length).toBeGreaterThan(990_000);

  // Within the limit together, the short stderr whole, stdout and output's JSON with head, tail and a marker.
  // The limit counts the texts as they are in JSON (a newline takes two characters, as does each quote of the
  // cut output); the other fields add a few hundred.
  const texts = [process.stdout, process.stderr, process.output];
  expect(texts.reduce((sum, text) => sum + JSON.stringify(text).length - 2, 0)).toBeLessThanOrEqual(AGENT_TEXT_LIMIT);
  expect(textOf(result).length).toBeLessThan(AGENT_TEXT_LIMIT + 500);
  expect(process.stderr).toBe("printed them all\n");
  expect(process.cut).toEqual([
    { stream: "output", totalChars: output.length, headChars: expect.any(Number), tailChars: expect.any(Number) },
    { stream: "stdout", totalChars: stdout.length, headChars: expect.any(Number), tailChars: expect.any(Number) },
  ]);
  for (const [cut, shown, whole] of [
    [process.cut[0], process.output, output],
    [process.cut[1], process.stdout, stdout],
  ]) {
    expect(shown.startsWith(whole.slice(0, cut.headChars))).toBe(true);
    expect(shown.endsWith(whole.slice(whole.length - cut.tailChars))).toBe(true);
    expect(cut.headChars).toBeGreaterThan(10_000);
    expect(shown).toContain(
      `read on with get_process {"id":${process.id},"stream":"${cut.stream}","offset":${cut.headChars}}`,
    );
  }

  // get_process answers the same; its pages join to the exact texts, from the start or from the marker.
  expect((await call(client, "get_process", { id: process.id })).structuredContent).toEqual(process);
  expect(await pages(client, process.id, "stdout", 0)).toBe(stdout);
  expect(
    process.stdout.slice(0, process.cut[1].headChars) +
      (await pages(client, process.id, "stdout", process.cut[1].headChars)),
  ).toBe(stdout);
  expect(await pages(client, process.id, "output", 0)).toBe(output);
  const small = await call(client, "get_process", { id: process.id, stream: "stderr", limit: 7 });
  expect((small.structuredContent as any).page).toEqual({
    stream: "stderr",
    offset: 0,
    totalChars: 17,
    text: "printed",
    nextOffset: 7,
  });
}
