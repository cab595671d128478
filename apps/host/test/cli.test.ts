import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoWeather } from "../../../examples/demo-weather/src/server.mjs";
import { startHost, type TestHost, tempDir } from "./support/host.js";

/**
 * The client commands of the built `cyrnel` bin, run as subprocesses
 * against a real host, with the built-in OpenAPI adapter serving the
 * demo-weather API and the built-in TypeScript sandbox running code.
 */
const API_KEY = "cli-test-key";
const DEMO_TOKEN = "demo-token-7f3a9c";
const bin = join(import.meta.dirname, "..", "bin", "cyrnel.js");

let host: TestHost;
let weather: Awaited<ReturnType<typeof startDemoWeather>>;
const work = tempDir("cyrnel-cli-");

beforeAll(async () => {
  weather = await startDemoWeather({ token: DEMO_TOKEN });
  host = await startHost({ env: { CYRNEL_API_KEY: API_KEY } });
});
afterAll(async () => {
  await host?.stop();
  await weather?.close();
});

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function spawnCli(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ["--no-node-snapshot", bin, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, CYRNEL_URL: host.url, CYRNEL_API_KEY: API_KEY, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

function finished(child: ChildProcess, input?: string): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  child.stdin!.end(input);
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

const cli = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) =>
  finished(spawnCli(args, options.env), options.input);

const file = (name: string, content: string) => {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
};

describe("services", () => {
  it("installs from a definition URL and answers JSON with --json", async () => {
    const result = await cli([
      "services",
      "install",
      "--id",
      "weather",
      "--url",
      `${weather.url}/openapi.json`,
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      id: "weather",
      name: "Demo Weather",
      adapter: "openapi",
      enabled: false,
      toolCount: 3,
      configSchema: expect.any(Object),
      secretsSchema: expect.any(Object),
    });
    // Not a terminal: no spinner frames on stderr.
    expect(result.stderr).toBe("");
  });

  it("installs from a file, in a readable line, and removes it", async () => {
    const definition = file("weather.json", await (await fetch(`${weather.url}/openapi.json`)).text());
    const installed = await cli(["services", "install", "--id", "weather2", "--file", definition]);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toBe("installed weather2 (Demo Weather): 3 tools, disabled\n");
    expect(installed.stderr).toContain("cyrnel services enable weather2");

    const removed = await cli(["services", "remove", "weather2"]);
    expect(removed).toMatchObject({ code: 0, stdout: "removed weather2\n" });
    expect((await host.api("GET", "/services/weather2")).status).toBe(404);
  });

  it("sets config from key=value pairs (JSON when it parses) and from --json", async () => {
    const pairs = await cli(["services", "config", "set", "weather", "timeoutMs=5000", `baseUrl=${weather.url}`]);
    expect(pairs.code, pairs.stderr).toBe(0);
    expect(JSON.parse(pairs.stdout).config).toMatchObject({ timeoutMs: 5000, baseUrl: weather.url });

    const patch = await cli(["services", "config", "set", "weather", "--json", '{"timeoutMs": 8000}']);
    expect(patch.code, patch.stderr).toBe(0);
    expect(JSON.parse(patch.stdout).config).toMatchObject({ timeoutMs: 8000, baseUrl: weather.url });

    const read = await cli(["services", "config", "get", "weather"]);
    expect(JSON.parse(read.stdout)).toEqual(JSON.parse(patch.stdout));
  });

  it("reads a secret from stdin, never from argv, and never prints or logs it", async () => {
    const schema = (await host.api("GET", "/services/weather")).body.secretsSchema;
    const [name] = Object.keys(schema.properties);
    expect(name).toBeDefined();
    const args = ["services", "secrets", "set", "weather", name!];
    const result = await cli(args, { input: `${DEMO_TOKEN}\n` });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`set secret ${name} on weather\n`);
    expect(args.join(" ")).not.toContain(DEMO_TOKEN);
    expect(result.stdout + result.stderr).not.toContain(DEMO_TOKEN);

    const listed = await cli(["services", "secrets", "list", "weather", "--json"]);
    expect(JSON.parse(listed.stdout)).toEqual({ set: [name] });

    const empty = await cli(args, { input: "" });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("empty");
    expect(host.output.join("\n")).not.toContain(DEMO_TOKEN);
  });

  it("enables and disables, and lists services as a table or JSON", async () => {
    const enabled = await cli(["services", "enable", "weather"]);
    expect(enabled).toMatchObject({ code: 0, stdout: "weather is enabled\n" });

    const table = await cli(["services", "list"]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+ADAPTER\s+TOOLS\s+NAME$/);
    expect(lines[1]).toMatch(/^weather\s+enabled\s+openapi\s+3\s+Demo Weather$/);
    expect(lines[1]!.indexOf("enabled")).toBe(lines[0]!.indexOf("STATUS"));

    const json = await cli(["services", "list", "--json"]);
    expect(JSON.parse(json.stdout)).toEqual({
      items: [expect.objectContaining({ id: "weather", enabled: true, toolCount: 3 })],
    });

    const disabled = await cli(["services", "disable", "weather", "--json"]);
    expect(JSON.parse(disabled.stdout)).toMatchObject({ id: "weather", enabled: false });
    expect((await cli(["services", "enable", "weather"])).code).toBe(0);
  });
});

describe("tools", () => {
  it("lists tools as a table, filtered by service and query, or as JSON", async () => {
    const table = await cli(["tools", "list", "--service", "weather"]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^SERVICE\s+TOOL\s+STATUS\s+POLICY\s+NAME$/);
    expect(lines[1]).toMatch(/^weather\s+listCities\s+enabled\s+allow\s+/);
    expect(lines.slice(1).map((line) => line.split(/\s+/)[1])).toEqual(["listCities", "getForecast", "createAlert"]);

    const query = await cli(["tools", "list", "--query", "DAILY", "--json"]);
    expect(JSON.parse(query.stdout).items).toEqual([
      expect.objectContaining({ serviceId: "weather", id: "getForecast", effectivelyEnabled: true }),
    ]);
  });

  it("prints a tool's Markdown docs", async () => {
    const docs = await cli(["tools", "docs", "weather", "getForecast"]);
    expect(docs.code, docs.stderr).toBe(0);
    expect(docs.stdout).toContain("cyrnel.services.weather.tools.getForecast.invoke(");
    const json = await cli(["tools", "docs", "weather", "getForecast", "--json"]);
    expect(JSON.parse(json.stdout)).toEqual({ serviceId: "weather", toolId: "getForecast", markdown: docs.stdout });
  });
});

describe("run", () => {
  it("prints stdout, stderr and output, and exits 0 on success", async () => {
    const program = file(
      "forecast.ts",
      `const forecast = await cyrnel.services.weather.tools.getForecast.invoke({ city: "oslo", days: 2 });
const alert = await cyrnel.services.weather.tools.createAlert.invoke({ body: { city: "oslo", belowC: -5 } });
console.log("days:", forecast.days.length);
console.error("a warning");
cyrnel.output({ city: forecast.city.name, alert: alert.id });`,
    );
    const result = await cli(["run", program]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`days: 2\n${JSON.stringify({ city: "Oslo", alert: "alert-1" }, null, 2)}\n`);
    expect(result.stderr).toBe("a warning\n");
  });

  it("answers the whole process with --json, from stdin with -", async () => {
    const result = await cli(["run", "-", "--json", "--ref", "from-stdin"], { input: "cyrnel.output({ n: 6 * 7 });" });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      id: expect.any(Number),
      ref: "from-stdin",
      state: "idle",
      exitState: "success",
      error: null,
      output: { n: 42 },
      stdout: "",
      stderr: "",
    });
  });

  it("exits 1 when the process fails, with the error on stderr", async () => {
    const result = await cli(["run", file("fail.ts", 'throw new Error("no such city");')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cyrnel: process \d+ failed: .*no such city/);
  });

  it("exits 124 when the process times out", async () => {
    const result = await cli(["run", file("loop.ts", "while (true) {}"), "--timeout", "300"]);
    expect(result.code).toBe(124);
    expect(result.stderr).toMatch(/process \d+ timeout/);
  });

  it("streams stdout and stderr while the process is still running", async () => {
    const child = spawnCli([
      "run",
      file(
        "chatty.ts",
        'console.log("first line");\nconsole.error("a warning");\nawait new Promise((r) => setTimeout(r, 20000));',
      ),
      "--ref",
      "chatty",
    ]);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
    await expect.poll(() => stdout).toBe("first line\n");
    await expect.poll(() => stderr).toContain("a warning\n");
    // Printed while the code is still waiting: the process is running, not finished.
    const [running] = (await host.api("GET", "/processes?ref=chatty")).body.items;
    expect(running.state).toBe("running");
    child.kill("SIGINT");
    expect(await closed).toBe(130);
    expect(stdout).toBe("first line\n");
  });

  it("cancels the process on Ctrl-C and exits 130", async () => {
    const child = spawnCli([
      "run",
      file("slow.ts", "await new Promise((r) => setTimeout(r, 20000));"),
      "--ref",
      "slow",
    ]);
    const result = finished(child);
    await expect
      .poll(async () => (await host.api("GET", "/processes?ref=slow&state=running")).body.items.length, {
        timeout: 15_000,
      })
      .toBe(1);
    child.kill("SIGINT");
    const { code, stderr } = await result;
    expect(code).toBe(130);
    expect(stderr).toMatch(/process \d+ canceled/);
    const [process] = (await host.api("GET", "/processes?ref=slow")).body.items;
    expect(process).toMatchObject({ state: "idle", exitState: "canceled" });
  });

  it.each([
    ["a missing file", ["run", "/nonexistent/x.ts"], "cannot read"],
    ["a bad timeout", ["run", "x.ts", "--timeout", "soon"], "--timeout"],
    ["no file", ["run"], "missing <file.ts>"],
  ])("exits 2 for %s", async (_label, args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe("policies and approvals", () => {
  /** Reads, writes go through approvals: the weather service's createAlert (POST) waits for an operator. */
  const askForWrites = { default: "allow", rules: [{ readOnly: false, action: "ask" }] };

  it("sets a service's policy from a file or --json and reads it back", async () => {
    const set = await cli([
      "services",
      "policy",
      "set",
      "weather",
      "--file",
      file("policy.json", JSON.stringify(askForWrites)),
    ]);
    expect(set.code, set.stderr).toBe(0);
    // The host's own approval timeout: the file set none.
    expect(JSON.parse(set.stdout)).toEqual({ ...askForWrites, approvalTimeoutMs: null });
    const get = await cli(["services", "policy", "get", "weather"]);
    expect(JSON.parse(get.stdout)).toEqual({ ...askForWrites, approvalTimeoutMs: null });
    const tools = await cli(["tools", "list", "--service", "weather", "--json"]);
    expect(JSON.parse(tools.stdout).items.map((tool: any) => [tool.id, tool.policy])).toEqual([
      ["listCities", "allow"],
      ["getForecast", "allow"],
      ["createAlert", "ask"],
    ]);
    const bad = await cli(["services", "policy", "set", "weather", "--json", "{not json"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--json is not valid JSON");
    const refused = await cli([
      "services",
      "policy",
      "set",
      "weather",
      "--json",
      '{"rules":[{"tools":"a-b","action":"deny"}]}',
    ]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("validation_failed");
  });

  it("run says when the process is suspended on an approval and when it is decided; approvals decide it", async () => {
    const child = spawnCli([
      "run",
      file(
        "alert.ts",
        `const alert = await cyrnel.services.weather.tools.createAlert.invoke({ body: { city: "oslo", belowC: -9 } });
cyrnel.output({ alert: alert.id });`,
      ),
    ]);
    const result = finished(child);
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    await expect.poll(() => stderr).toMatch(/suspended: weather\.createAlert waits for approval \d+/);
    const id = /waits for approval (\d+)/.exec(stderr)![1]!;

    const listed = await cli(["approvals", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+STATE\s+PROCESS\s+TOOL\s+CREATED\s+SIZE\s+PARAMETERS\n/);
    expect(listed.stdout).toMatch(new RegExp(`\\n${id}\\s+pending\\s+\\d+\\s+weather\\.createAlert\\s`));
    const approved = await cli(["approvals", "approve", id, "--reason", "cold enough"]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(new RegExp(`^approval ${id} approved: weather\\.createAlert of process \\d+`));

    const { code, stdout } = await result;
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ alert: expect.any(String) });
    expect(stderr).toContain(`approval ${id} (weather.createAlert) approved: cold enough`);
    const again = await cli(["approvals", "deny", id]);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain("already approved");
    expect((await cli(["approvals", "list"])).stdout).toBe("no pending approvals\n");
    const all = JSON.parse((await cli(["approvals", "list", "--state", "all", "--json"])).stdout);
    expect(all.items[0]).toMatchObject({ id: Number(id), state: "approved", reason: "cold enough" });
  });

  it("a denied call fails the run with approval_denied and the reason", async () => {
    const child = spawnCli([
      "run",
      file(
        "denied.ts",
        `await cyrnel.services.weather.tools.createAlert.invoke({ body: { city: "oslo", belowC: -9 } });`,
      ),
    ]);
    const result = finished(child);
    const pending = (await pendingApprovals())[0]!;
    const denied = await cli(["approvals", "deny", String(pending.id), "--reason", "no alerts today", "--json"]);
    expect(JSON.parse(denied.stdout)).toMatchObject({ state: "denied", reason: "no alerts today" });
    const { code, stderr } = await result;
    expect(code).toBe(1);
    expect(stderr).toContain(`approval ${pending.id} (weather.createAlert) denied: no alerts today`);
    expect(stderr).toMatch(/process \d+ failed: .*no alerts today.*approval_denied/);
    await cli(["services", "policy", "set", "weather", "--json", "{}"]);
  });

  it.each([
    ["a bad state", ["approvals", "list", "--state", "later"], "--state must be one of"],
    ["a bad id", ["approvals", "approve", "x1"], "an approval id is a positive integer"],
    ["no id", ["approvals", "deny"], "missing <id>"],
    ["an unknown command", ["approvals", "postpone", "1"], "unknown approvals command"],
  ])("exits 2 for %s", async (_label, args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

async function pendingApprovals(): Promise<Record<string, any>[]> {
  let items: Record<string, any>[] = [];
  await expect
    .poll(async () => {
      items = (await host.api("GET", "/approvals?state=pending")).body.items;
      return items.length;
    }, {})
    .toBeGreaterThan(0);
  return items;
}

describe("errors", () => {
  it("prints the API's error and code and exits 3", async () => {
    const result = await cli(["services", "enable", "nope"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe('cyrnel: service "nope" not found (not_found, HTTP 404)\n');

    const json = await cli(["tools", "docs", "weather", "nope", "--json"]);
    expect(json.code).toBe(3);
    expect(json.stdout).toBe("");
    expect(JSON.parse(json.stderr)).toMatchObject({ code: "not_found", status: 404 });

    const invalid = await cli(["services", "config", "set", "weather", "timeoutMs=fast"]);
    expect(invalid.code).toBe(3);
    expect(invalid.stderr).toContain("validation_failed");
  });

  it("exits 3 with unauthorized for a wrong API key, and takes --api-key and --url over the environment", async () => {
    const wrong = await cli(["services", "list"], { env: { CYRNEL_API_KEY: "wrong" } });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain("(unauthorized, HTTP 401)");

    const flags = await cli(["tools", "list", "--url", host.url, "--api-key", API_KEY, "--json"], {
      env: { CYRNEL_URL: "http://127.0.0.1:9", CYRNEL_API_KEY: "wrong" },
    });
    expect(flags.code, flags.stderr).toBe(0);
  });

  it("exits 4 when the host cannot be reached", async () => {
    const result = await cli(["services", "list"], { env: { CYRNEL_URL: "http://127.0.0.1:9" } });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("cannot reach the cyrnel host at http://127.0.0.1:9");
    expect(result.stderr).toContain("(unreachable)");
  });

  it.each([
    ["an unknown flag", ["services", "list", "--bogus"], "--bogus"],
    ["an unknown subcommand", ["services", "explode"], "explode"],
    ["install without a source", ["services", "install", "--id", "x"], "--url and --file"],
    ["config set without pairs", ["services", "config", "set", "weather"], "pairs"],
    ["a bad host URL", ["services", "list", "--url", "ftp://x"], "http or https"],
  ])("exits 2 for %s", async (_label, args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it("keeps start, version and help", async () => {
    const version = await cli(["version"]);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const help = await cli(["help"]);
    expect(help.code).toBe(0);
    for (const command of ["start", "services", "tools", "run", "mcp"])
      expect(help.stdout).toContain(`cyrnel ${command}`);
    expect((await cli(["frobnicate"])).code).toBe(2);
  });
});

describe("keys", () => {
  it("creates a key, prints it once on stdout with a warning, lists it without the key and revokes it", async () => {
    const created = await cli(["keys", "create", "--name", "cli agent", "--role", "agent", "--services", "weather,"]);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^cyk_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toContain('created agent key "cli agent", services: weather as key_');
    expect(created.stderr).toContain("shown only this once");
    const id = /as (key_[0-9a-f]+)/.exec(created.stderr)![1]!;

    const listed = await cli(["keys", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+agent\\s+weather\\s+never\\s+never\\s+cli agent$`, "m"));
    expect(listed.stdout).not.toContain(key);
    const json = JSON.parse((await cli(["keys", "list", "--json"])).stdout);
    expect(json.items).toContainEqual(expect.objectContaining({ id, role: "agent", services: ["weather"] }));

    // The key works, as an agent key: listing keys needs an admin key.
    const asAgent = await cli(["keys", "list"], { env: { CYRNEL_API_KEY: key } });
    expect(asAgent.code).toBe(3);
    expect(asAgent.stderr).toContain("(forbidden, HTTP 403)");

    const revoked = await cli(["keys", "revoke", id]);
    expect(revoked).toMatchObject({ code: 0, stdout: `revoked ${id}\n` });
    const after = await cli(["services", "list"], { env: { CYRNEL_API_KEY: key } });
    expect(after.code).toBe(3);
    expect(after.stderr).toContain("(unauthorized, HTTP 401)");
  });

  it("answers --json with the record and the key, and takes an expiry", async () => {
    const created = await cli([
      "keys",
      "create",
      "--name",
      "ops",
      "--role",
      "admin",
      "--expires",
      "2999-01-01T00:00:00Z",
      "--json",
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      name: "ops",
      role: "admin",
      services: null,
      expiresAt: "2999-01-01T00:00:00.000Z",
      key: expect.stringMatching(/^cyk_/),
    });
    expect(created.stderr).toContain("shown only this once");
  });

  it.each([
    ["no role", ["keys", "create", "--name", "x"], "--role"],
    ["an unknown role", ["keys", "create", "--name", "x", "--role", "root"], "--role"],
    ["no name", ["keys", "create", "--role", "agent"], "--name"],
    ["create flags on list", ["keys", "list", "--role", "agent"], "belong to keys create"],
    ["revoke without an id", ["keys", "revoke"], "<key-id>"],
  ])("exits 2 for %s", async (_label, args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
