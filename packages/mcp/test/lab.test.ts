import { AdapterError, type AdapterModule, isValidIdentifier, type ServiceDefinition } from "@cyrnel/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adapter, alive, type LogEntry, labServer, type RecordingLogger, stateOf, stdio } from "./support.js";

/**
 * The adapter against a small real MCP server (test/fixtures/lab-server.mjs,
 * the SDK's own `Server` over stdio) for what the reference servers do not
 * show: paging, names that collide as identifiers, cancellation seen from the
 * server's side, a crash and the restart, a changed tool list, and what the
 * child process's environment holds.
 */
let mcp: AdapterModule;
let logger: RecordingLogger;
let definition: ServiceDefinition;
const ID = "lab";

const invoke = (toolId: string, parameters: Record<string, unknown> = {}, signal?: AbortSignal) =>
  mcp.invoke({ serviceId: ID, toolId, parameters, ...(signal ? { signal } : {}) });
const pidOf = async () => Number(((await invoke("pid")) as { text: string }).text);

beforeAll(async () => {
  ({ adapter: mcp, logger } = await adapter());
  // Set in the host's own environment: none of it may reach the child.
  process.env.CYRNEL_SECRETS_KEY = "host-secret-never-in-a-child";
  definition = await mcp.generateDefinition(stdio(labServer, [], { LAB_GREETING: "hello" }));
  await mcp.hydrateService(stateOf(ID, definition, { env: { LAB_TOKEN: "secret-token" } }));
});

afterAll(async () => {
  delete process.env.CYRNEL_SECRETS_KEY;
  await mcp?.teardown();
});

describe("install", () => {
  it("lists every page and records the server's name, version and instructions", () => {
    expect(definition.name).toBe("lab");
    expect(definition.description).toContain("lab 1.2.3");
    expect(definition.description).toContain("Lab instructions.");
    // 11 tools over 4 pages of 3; the task-only one is named as not callable instead of becoming a tool.
    expect(definition.tools).toHaveLength(10);
    expect(definition.description).toContain("Not callable through cyrnel (they run only as MCP tasks): task-only.");
  });

  it("makes every name a valid identifier, deterministically", async () => {
    const ids = Object.fromEntries(
      definition.tools.map((tool) => [(tool.adapterDomain as { name: string }).name, tool.id]),
    );
    expect(ids).toEqual({
      pid: "pid",
      wait: "wait",
      crash: "crash",
      "add-tool": "addTool",
      // The tool named exactly `getSum` keeps it, though `get-sum` comes first.
      "get-sum": "getSum_2",
      getSum: "getSum",
      delete: "delete_",
      "2fa": "_2fa",
      搜索: expect.stringMatching(/^tool_[0-9a-f]{8}$/),
      env: "env",
    });
    for (const tool of definition.tools) expect(isValidIdentifier(tool.id)).toBe(true);
    const again = await mcp.generateDefinition(stdio(labServer, [], { LAB_GREETING: "hello" }));
    expect(again.tools.map((tool) => tool.id)).toEqual(definition.tools.map((tool) => tool.id));
  });

  it("takes title, output schema and annotations from the server, with MCP's defaults for missing hints", () => {
    const tool = (id: string) => definition.tools.find((candidate) => candidate.id === id)!;
    expect(tool("env")).toMatchObject({
      name: "Environment",
      outputSchema: { type: "object", additionalProperties: { type: "string" } },
      endpoint: "tools/call env",
    });
    expect(tool("pid").annotations).toEqual({ readOnly: true, destructive: false, idempotent: false, openWorld: true });
    expect(tool("wait").annotations).toEqual({
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: true,
    });
    expect(tool("crash").annotations).toMatchObject({ destructive: false });
    // A tool without an output schema returns the content shape, which its schema says.
    expect(tool("pid").outputSchema).toMatchObject({ required: ["text", "content"] });
  });

  it("stops the server it started for the listing", async () => {
    const started = logger.entries.filter((entry) => entry.fields.during === "install" && /ready$/.test(entry.message));
    expect(started.length).toBeGreaterThan(0);
    for (const entry of started) {
      const pid = Number(/lab server (\d+) ready/.exec(entry.message)![1]);
      await expect.poll(() => alive(pid)).toBe(false);
    }
  });

  it("refuses a definition it cannot use, saying why", async () => {
    await expect(mcp.generateDefinition("{}")).rejects.toThrow(/"transport" must be "http" or "stdio"/);
    await expect(
      mcp.generateDefinition(JSON.stringify({ transport: "stdio", command: "/nonexistent/mcp-server" })),
    ).rejects.toThrow(/cannot start the MCP server "\/nonexistent\/mcp-server".*ENOENT/);
    await expect(
      mcp.generateDefinition(
        JSON.stringify({
          transport: "stdio",
          command: process.execPath,
          args: ["-e", "console.error('no MCP here'); process.exit(2)"],
        }),
      ),
    ).rejects.toThrow(/exited with code 2.*no MCP here/);
  });
});

describe("the child process", () => {
  it("gets only the definition's env, its secrets and a minimal PATH — nothing of the host's", async () => {
    const env = (await invoke("env")) as Record<string, string>;
    expect(Object.keys(env).sort()).toEqual(["LAB_GREETING", "LAB_TOKEN", "PATH"]);
    expect(env).toMatchObject({ LAB_GREETING: "hello", LAB_TOKEN: "secret-token" });
    expect(env.PATH!.split(":")).toContain("/usr/bin");
    expect(JSON.stringify(env)).not.toContain("host-secret-never-in-a-child");
  });

  it("sends its stderr to the module logger, per line, with the service id", async () => {
    const line = await logger.waitFor(
      (entry) => entry.fields.service === ID && /^lab server \d+ ready$/.test(entry.message),
    );
    expect(line.fields).toMatchObject({ stream: "stderr" });
  });
});

describe("calls", () => {
  it("share one session between concurrent calls", async () => {
    const opened = logger.count((entry) => entry.message === "MCP session open" && entry.fields.service === ID);
    const pids = await Promise.all(Array.from({ length: 8 }, pidOf));
    expect(new Set(pids).size).toBe(1);
    expect(logger.count((entry) => entry.message === "MCP session open" && entry.fields.service === ID)).toBe(opened);
  });

  it("turn isError into an AdapterError carrying the tool's text", async () => {
    const error = await invoke("getSum").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdapterError);
    expect((error as AdapterError).message).toBe('MCP tool "getSum" failed: no behaviour for getSum');
    expect((error as AdapterError).body).toBe("no behaviour for getSum");
  });

  it("cancel the server's request (notifications/cancelled) when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const call = invoke("wait", {}, controller.signal);
    const started = await logger.waitFor((entry) => entry.message.startsWith("wait started"));
    const requestId = started.message.split(" ").pop();
    controller.abort("the run was killed");
    await expect(call).rejects.toThrow('MCP tool "wait" was canceled');
    const canceled = await logger.waitFor((entry) => entry.message.startsWith(`wait canceled ${requestId}`));
    expect(canceled.message).toContain("the run was killed");
    // The session goes on.
    expect(await pidOf()).toBeGreaterThan(0);
  });

  it("survive the server's crash: the process is restarted and the next call goes to it", async () => {
    const before = await pidOf();
    await expect(invoke("crash")).rejects.toThrow(/Connection closed/);
    await logger.waitFor((entry) => entry.message === "MCP session ended; reconnecting" && entry.fields.service === ID);
    const after = await pidOf();
    expect(after).not.toBe(before);
    expect(alive(before)).toBe(false);
  });

  it("report a changed tool list (notifications/tools/list_changed)", async () => {
    // The list the current session checked when it opened is the installed one; then the server adds a tool.
    const ours = (message: string) => (entry: LogEntry) => entry.message === message && entry.fields.service === ID;
    const opened = logger.count(ours("MCP session open"));
    await expect.poll(() => logger.count(ours("MCP tool list checked"))).toBe(opened);
    expect(logger.entries.filter(ours("MCP tool list checked")).at(-1)?.fields.matches).toBe(true);
    await invoke("addTool");
    const warning = await logger.waitFor((entry) => entry.level === "warn" && /tools changed/.test(entry.message));
    expect(warning.fields).toMatchObject({ service: ID, reason: expect.stringContaining("list_changed") });
  });
});

describe("lifecycle", () => {
  it("stops the server with the service, and refuses calls until hydrated again", async () => {
    const pid = await pidOf();
    await mcp.dehydrateService(ID);
    expect(alive(pid)).toBe(false);
    await expect(invoke("pid")).rejects.toThrow(/not enabled on the mcp adapter/);
    await mcp.dehydrateService(ID);
    await mcp.hydrateService(stateOf(ID, definition));
    expect(await pidOf()).not.toBe(pid);
  });

  it("fails hydrate when the server cannot start, and keeps nothing running", async () => {
    const broken = stateOf("broken", definition);
    broken.adapterDomain = {
      ...broken.adapterDomain,
      target: { transport: "stdio", command: "/nonexistent/mcp-server", args: [], env: {} },
    };
    await expect(mcp.hydrateService(broken)).rejects.toThrow(/ENOENT/);
    await expect(mcp.invoke({ serviceId: "broken", toolId: "pid", parameters: {} })).rejects.toThrow(/not enabled/);
  });

  it("stops every server at teardown", async () => {
    const pid = await pidOf();
    await mcp.teardown();
    expect(alive(pid)).toBe(false);
  });
});
