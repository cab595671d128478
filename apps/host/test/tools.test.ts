import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";
import { enableRecorder, hookCalls, installRecorded, recorderDefinition } from "./support/recorder.js";

let host: TestHost;
let hookLog: string;

const inputSchema = {
  type: "object",
  properties: { city: { type: "string", minLength: 1 }, days: { type: "integer", minimum: 1, maximum: 14 } },
  required: ["city"],
  additionalProperties: false,
};

beforeAll(async () => {
  host = await startHost({ modules: ["recorder", "echo-env"], env: { CYRNEL_INVOKE_TIMEOUT_MS: "400" } });
  hookLog = await enableRecorder(host);
  await installRecorded(
    host,
    "weather",
    [
      { id: "forecast", name: "Forecast", description: "Daily forecast for a city", inputSchema },
      { id: "alerts", name: "Severe alerts", description: "Storm WARNINGS for a region" },
      { id: "broken", behavior: "fail", description: "Always fails upstream" },
      { id: "slow", behavior: "slow", description: "Sleeps" },
      { id: "leaky", behavior: "leak", description: "Puts its token in the error" },
    ],
    {
      enabled: true,
      extra: { secretsSchema: { type: "object", properties: { token: { type: "string" } } } },
    },
  );
  await host.api("PATCH", "/services/weather/secrets", { token: "tok-ABCDEF-123456" });
  await installRecorded(host, "dormant", [{ id: "sleep", description: "Ünïcode tool for naps" }]);
});

afterAll(async () => {
  await host?.stop();
});

describe("listing and reading tools", () => {
  it("lists tools with effectivelyEnabled, in definition order", async () => {
    const response = await host.api("GET", "/tools?serviceId=weather");
    expect(response.body.items.map((tool: any) => tool.id)).toEqual(["forecast", "alerts", "broken", "slow", "leaky"]);
    expect(response.body.items[0]).toEqual({
      serviceId: "weather",
      id: "forecast",
      name: "Forecast",
      description: "Daily forecast for a city",
      enabled: true,
      effectivelyEnabled: true,
      // The recorder adapter claims no annotations; a service without a policy allows every call.
      annotations: {},
      policy: "allow",
    });
    const dormant = await host.api("GET", "/tools?serviceId=dormant");
    expect(dormant.body.items[0]).toMatchObject({ enabled: true, effectivelyEnabled: false });
  });

  it("searches name and description case-insensitively, Unicode included", async () => {
    const ids = async (query: string) =>
      (await host.api("GET", `/tools?query=${encodeURIComponent(query)}`)).body.items.map(
        (t: any) => `${t.serviceId}.${t.id}`,
      );
    expect(await ids("warnings")).toEqual(["weather.alerts"]);
    expect(await ids("FORECAST")).toEqual(["weather.forecast"]);
    expect(await ids("ÜNÏCODE")).toEqual(["dormant.sleep"]);
  });

  it("filters by enabled and pages with a cursor", async () => {
    await host.api("POST", "/tools/weather/alerts/enabled", { enabled: false });
    const disabled = await host.api("GET", "/tools?enabled=false");
    expect(disabled.body.items.map((t: any) => t.id)).toEqual(["alerts"]);
    await host.api("POST", "/tools/weather/alerts/enabled", { enabled: true });

    const all = (await host.api("GET", "/tools")).body.items.map((t: any) => `${t.serviceId}.${t.id}`);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await host.api("GET", `/tools?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.body.items.map((t: any) => `${t.serviceId}.${t.id}`));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
    expect(all).toHaveLength(6);
  });

  it("carries each tool's schemas in the list only with include=schemas", async () => {
    const plain = await host.api("GET", "/tools?serviceId=weather");
    expect(plain.body.items[0].inputSchema).toBeUndefined();
    const full = await host.api("GET", "/tools?serviceId=weather&include=schemas");
    expect(full.status).toBe(200);
    expect(full.body.items[0]).toMatchObject({ id: "forecast", inputSchema, outputSchema: { type: "object" } });
    expect(full.body.items.every((tool: any) => typeof tool.inputSchema === "object")).toBe(true);
    expect((await host.api("GET", "/tools?include=everything")).status).toBe(400);
  });

  it("returns a tool's schemas, and 404s name what is missing", async () => {
    const tool = await host.api("GET", "/tools/weather/forecast");
    expect(tool.body.inputSchema).toEqual(inputSchema);
    expect(tool.body.outputSchema).toEqual({ type: "object" });
    const noService = await host.api("GET", "/tools/nope/forecast");
    expect(noService.status).toBe(404);
    expect(noService.body.error).toContain('service "nope"');
    const noTool = await host.api("GET", "/tools/weather/nope");
    expect(noTool.status).toBe(404);
    expect(noTool.body.error).toContain('tool "nope"');
  });
});

describe("invocation gating, in the order of the table", () => {
  const invoke = (service: string, tool: string, parameters: unknown = { city: "Oslo" }) =>
    host.api("POST", `/tools/${service}/${tool}/invoke`, { parameters });

  it("calls the adapter and returns its result", async () => {
    const response = await invoke("weather", "forecast", { city: "Oslo", days: 3 });
    expect(response.status, response.text).toBe(200);
    expect(response.body.result.parameters).toEqual({ city: "Oslo", days: 3 });
  });

  it("answers each gate with its status and code, and never reaches the adapter", async () => {
    await host.api("POST", "/tools/weather/alerts/enabled", { enabled: false });
    const before = hookCalls(hookLog).filter((call) => call.hook === "invoke").length;
    const cases: [string, string, unknown, number, string][] = [
      ["nope", "forecast", { city: "Oslo" }, 404, "not_found"],
      ["weather", "nope", { city: "Oslo" }, 404, "not_found"],
      ["dormant", "sleep", {}, 409, "service_disabled"],
      ["weather", "alerts", {}, 409, "tool_disabled"],
      ["weather", "forecast", { days: 3 }, 400, "validation_failed"],
      ["weather", "forecast", { city: "Oslo", days: 99 }, 400, "validation_failed"],
      ["weather", "forecast", { city: "Oslo", extra: 1 }, 400, "validation_failed"],
    ];
    for (const [service, tool, parameters, status, code] of cases) {
      const response = await invoke(service, tool, parameters);
      expect([service, tool, response.status, response.body.code]).toEqual([service, tool, status, code]);
    }
    expect(hookCalls(hookLog).filter((call) => call.hook === "invoke").length).toBe(before);
    await host.api("POST", "/tools/weather/alerts/enabled", { enabled: true });
  });

  it("checks existence before enabled flags, and enabled flags before parameters", async () => {
    await host.api("POST", "/tools/weather/alerts/enabled", { enabled: false });
    await host.api("POST", "/services/weather/enabled", { enabled: false });
    // Disabled service and disabled tool: the service answer wins.
    expect((await invoke("weather", "alerts", { bad: true })).body.code).toBe("service_disabled");
    // Missing tool on a disabled service: existence wins.
    expect((await invoke("weather", "ghost")).body.code).toBe("not_found");
    await host.api("POST", "/services/weather/enabled", { enabled: true });
    // Disabled tool with bad parameters: the flag wins.
    expect((await invoke("weather", "alerts", "not an object")).status).toBe(400);
    expect((await invoke("weather", "alerts", { anything: 1 })).body.code).toBe("tool_disabled");
    await host.api("POST", "/tools/weather/alerts/enabled", { enabled: true });
  });

  it("names the failing parameters", async () => {
    const response = await invoke("weather", "forecast", { days: 0 });
    expect(response.body.error).toContain("city");
    expect(response.body.error).toContain("days");
    expect(Array.isArray(response.body.details)).toBe(true);
  });

  it("turns an adapter failure into 502 with the upstream status and body", async () => {
    const response = await invoke("weather", "broken", {});
    expect(response.status).toBe(502);
    expect(response.body).toEqual({
      error: 'upstream said no (upstream status 418): {"reason":"teapot"}',
      code: "adapter_error",
      details: { status: 418, body: { reason: "teapot" } },
    });
  });

  it("says in the message what the upstream answered: its start, whitespace collapsed, secrets masked", async () => {
    const secretsSchema = { type: "object", properties: { token: { type: "string" } } };
    await installRecorded(host, "wordy", [{ id: "verbose", behavior: "failVerbose" }], {
      enabled: true,
      extra: { secretsSchema },
    });
    expect((await host.api("PATCH", "/services/wordy/secrets", { token: "tok-ABCDEF-123456" })).status).toBe(200);
    const response = await invoke("wordy", "verbose", {});
    await host.api("DELETE", "/services/wordy");
    expect(response.status).toBe(502);
    const error: string = response.body.error;
    const own = error.slice(0, error.indexOf(": "));
    const excerpt = error.slice(error.indexOf(": ") + 2);
    expect(own).toBe("the upstream refused (upstream status 422)");
    expect(excerpt).toMatch(/^Invalid request: token \[redacted\] is not allowed here\. x+…$/);
    expect(excerpt.length).toBeLessThanOrEqual(300);
    expect(response.text).not.toContain("tok-ABCDEF-123456");
    // The whole answer stays in details, masked too.
    expect(response.body.details.status).toBe(422);
    expect(response.body.details.body).toContain("x".repeat(1000));
  });

  it.each([
    [
      "POST",
      "/tools/weather/forecats/invoke",
      'tool "forecats" on service "weather" not found; did you mean `forecast`?',
    ],
    ["POST", "/tools/wether/forecast/invoke", 'service "wether" not found; did you mean `weather`?'],
    ["GET", "/tools/weather/FORECAST", 'tool "FORECAST" on service "weather" not found; did you mean `forecast`?'],
    ["GET", "/tools/weather/alert/docs", 'tool "alert" on service "weather" not found; did you mean `alerts`?'],
    ["GET", "/services/weathr", 'service "weathr" not found; did you mean `weather`?'],
    ["GET", "/tools/weather/submarine", 'tool "submarine" on service "weather" not found'],
  ])("a misspelled id is a 404 naming the closest ones: %s %s", async (method, path, error) => {
    const response = await host.api(method, path, method === "POST" ? { parameters: {} } : undefined);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error, code: "not_found" });
  });

  it("masks the service's secret values in adapter errors", async () => {
    const response = await invoke("weather", "leaky", {});
    expect(response.status).toBe(502);
    expect(response.text).not.toContain("tok-ABCDEF-123456");
    expect(response.body.error).toContain("[redacted]");
  });

  it("answers 504 when the adapter exceeds CYRNEL_INVOKE_TIMEOUT_MS", async () => {
    const response = await invoke("weather", "slow", { ms: 2000 });
    expect(response.status).toBe(504);
    expect(response.body.code).toBe("invoke_timeout");
    expect((await invoke("weather", "slow", { ms: 10 })).status).toBe(200);
  });

  it("answers 504 when generateDefinition exceeds CYRNEL_INVOKE_TIMEOUT_MS, on install and on update", async () => {
    const slow = recorderDefinition([{ id: "late" }], { delayMs: 5000 });
    const install = await host.api("POST", "/services", { id: "sluggish", adapter: "recorder", definition: slow });
    expect(install.status, install.text).toBe(504);
    expect(install.body.code).toBe("invoke_timeout");
    expect((await host.api("GET", "/services/sluggish")).status).toBe(404);

    await installRecorded(host, "steady", [{ id: "early" }]);
    try {
      const update = await host.api("PATCH", "/services/steady", { definition: slow });
      expect(update.status, update.text).toBe(504);
      expect(update.body.code).toBe("invoke_timeout");
      expect((await host.api("GET", "/tools/steady/early")).status).toBe(200);
    } finally {
      expect((await host.api("DELETE", "/services/steady")).status).toBe(204);
    }
  });

  it("rejects malformed invoke bodies with 400", async () => {
    const raw = await host.api("POST", "/tools/weather/forecast/invoke", "{not json");
    expect(raw.status).toBe(400);
    expect(raw.body.code).toBe("bad_request");
    const extra = await host.api("POST", "/tools/weather/forecast/invoke", { parameters: {}, other: 1 });
    expect(extra.status).toBe(400);
    expect(extra.body.error).toContain("other");
  });
});

describe("parameters are validated as sent", () => {
  const quirky = {
    type: "object",
    properties: {
      limit: { type: "integer", default: "100" },
      unit: { type: "string", enum: ["minute", "hour"] },
      shape: {
        oneOf: [
          { type: "object", required: ["kind"], properties: { kind: { const: "a" } } },
          { type: "object", required: ["kind"], properties: { kind: { const: "b" } } },
        ],
      },
    },
    additionalProperties: false,
  };
  const invoke = (parameters: unknown) => host.api("POST", "/tools/quirky/stats/invoke", { parameters });

  beforeAll(async () => {
    await installRecorded(host, "quirky", [{ id: "stats", inputSchema: quirky }], { enabled: true });
  });

  it("a default that breaks its own schema is neither checked nor injected", async () => {
    const response = await invoke({});
    expect(response.status, response.text).toBe(200);
    expect(response.body.result.parameters).toEqual({});
    expect((await invoke({ limit: "100" })).status).toBe(400);
  });

  it("rejections name the offending key and state each problem once", async () => {
    const unknown = await invoke({ source: "x" });
    const overridable =
      " (constraints of the API's document; nothing was sent. If the API accepts these parameters, an operator can override the tool's input constraints: PUT /tools/quirky/stats/input-override)";
    expect(unknown.body.error).toBe(`invalid parameters for quirky.stats: unknown field "source"${overridable}`);
    const badEnum = await invoke({ unit: "day" });
    expect(badEnum.body.error).toBe(
      `invalid parameters for quirky.stats: "unit" must be one of "minute", "hour"${overridable}`,
    );
    const union = await invoke({ shape: {} });
    expect(union.status).toBe(400);
    expect(union.body.error.split('missing required field "shape.kind"')).toHaveLength(2);
  });
});

describe("tool docs", () => {
  it("answers 503 no_environment when no environment is active", async () => {
    // The bundled environment is active on a fresh data dir; switch it off to have none.
    expect((await host.api("POST", "/modules/typescript-ivm/enabled", { enabled: false })).status).toBe(200);
    const response = await host.api("GET", "/tools/weather/forecast/docs");
    expect(response.status).toBe(503);
    expect(response.body.code).toBe("no_environment");
  });

  it("serves Markdown from the active environment", async () => {
    expect((await host.api("POST", "/modules/echo-env/enabled", { enabled: true })).status).toBe(200);
    const response = await host.api("GET", "/tools/weather/forecast/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/markdown");
    expect(response.text).toBe("# weather.forecast\n\nDaily forecast for a city\n");
  });
});
