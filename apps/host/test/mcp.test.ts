import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
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

  it("sends instructions and lists the six tools, each with a description", async () => {
    expect(client.getInstructions()).toContain("run_code");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ["get_process", "get_tool_docs", "get_types", "list_services", "run_code", "search_tools"].sort(),
    );
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
    expect((all.structuredContent as any).tools[0]).toMatchObject({ serviceId: "weather", effectivelyEnabled: true });

    const none = await call(client, "search_tools", { query: "submarine" });
    expect(none.structuredContent).toEqual({ tools: [] });
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

  it("reports tool errors inside the program with status and code (typecheck: false, the missing city is on purpose)", async () => {
    const result = await call(client, "run_code", {
      typecheck: false,
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
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect((result.structuredContent as any).output).toEqual({
      status: 502,
      code: "adapter_error",
      missingCity: "validation_failed",
    });
  });

  it("ends a program past its timeout with exitState timeout", async () => {
    const result = await call(client, "run_code", { code: "while (true) {}", timeoutMs: 300 });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ exitState: "timeout" });
  });

  it("sends progress notifications during a long run when asked", async () => {
    const progress: { progress: number }[] = [];
    const result = (await client.callTool(
      {
        name: "run_code",
        arguments: { code: "await new Promise((r) => setTimeout(r, 2600)); cyrnel.output({ done: true });" },
      },
      undefined,
      { onprogress: (event) => progress.push(event), resetTimeoutOnProgress: true },
    )) as CallToolResult;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect((result.structuredContent as any).output).toEqual({ done: true });
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]!.progress).toBeGreaterThan(0);
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
  ])("answers %s as a tool error", async (_label, tool, args, message) => {
    const result = await call(client, tool, args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(message);
    expect(textOf(result)).toContain("code: not_found");
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
      expect((await client.listTools()).tools).toHaveLength(6);

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
      expect((await down.client.listTools()).tools).toHaveLength(6);
      const result = await call(down.client, "run_code", { code: "1" });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("code: unreachable");
    } finally {
      await down.client.close();
    }
    expect(down.stderr.join("")).toContain("warning: cannot reach the cyrnel host at http://127.0.0.1:9");
  });
});
