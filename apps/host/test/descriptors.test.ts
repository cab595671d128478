/**
 * The host within its open-file limit (`ulimit -n`): started under a low
 * limit, it keeps descriptors for `/health`, new runs and their tool calls
 * however many followers and connections come; past its budget a follower
 * gets `429` and a connection `503`, both answered at once. Under a limit too
 * low to load its code it says so in one line instead of a stack trace.
 */
import { connect, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { type CounterApi, startCounterApi } from "./support/counter-api.js";
import { startHost, type TestHost } from "./support/host.js";

const KEY = "descriptors-counter-key";

describe("within the open-file limit", () => {
  const hosts: TestHost[] = [];
  let counter: CounterApi | undefined;
  afterAll(async () => {
    for (const host of hosts) await host.kill();
    await counter?.close();
  });

  it("says in one line that the limit is too low to start", async () => {
    const host = await startHost({ openFileLimit: 200, expectListening: false });
    hosts.push(host);
    expect(await host.waitForExit()).toBe(1);
    const said = host.output.join("\n");
    expect(said).toMatch(/^cyrnel: could not start: the open-file limit \(ulimit -n\) is 200; .*raise it/m);
    expect(said).not.toContain("    at ");
  });

  it("keeps /health and new runs answering under a flood of followers and connections; past the budget: 429 and 503", async () => {
    counter = await startCounterApi(KEY);
    const host = await startHost({ openFileLimit: 400, env: { CYRNEL_PROCESS_FOLLOWERS_LIMIT: "10000" } });
    hosts.push(host);
    const listening = await host.waitForLog((entry) => entry.msg === "listening");
    expect(listening).toMatchObject({ openFileLimit: 400 });
    const maxFollowers = listening.maxFollowers as number;
    const maxConnections = listening.maxConnections as number;
    expect(maxFollowers).toBeLessThan(maxConnections);
    expect(
      (await host.api("POST", "/services", { id: "counter", adapter: "openapi", definition: counter.definition }))
        .status,
    ).toBe(201);
    expect((await host.api("PATCH", "/services/counter/secrets", { counterKey: KEY })).status).toBe(200);
    expect((await host.api("POST", "/services/counter/enabled", { enabled: true })).status).toBe(200);

    // A run held at its tool call, and more followers of it than the host's budget.
    const held = await host.api("POST", "/processes", {
      code: 'await cyrnel.services.counter.tools.hit.invoke({ tag: "held", hold: true });',
    });
    await counter.held(["held"]);
    const aborts = new AbortController();
    const followers = await Promise.all(
      Array.from({ length: maxFollowers + 40 }, () =>
        fetch(`${host.url}/processes/${held.body.id}/events`, { signal: aborts.signal }),
      ),
    );
    const statuses = followers.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(maxFollowers);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40);
    const refused = followers.find((response) => response.status === 429)!;
    expect(((await refused.json()) as { error: string }).error).toContain("ulimit -n");

    // With every follower seat taken: the health check, and a new run whose tool call needs a descriptor of its own.
    expect((await host.api("GET", "/health")).status).toBe(200);
    const run = await host.api("POST", "/processes", {
      block: true,
      code: 'const r = await cyrnel.services.counter.tools.record.invoke({ tag: "beside" });\ncyrnel.output(r);',
    });
    expect(run.body, run.text).toMatchObject({ exitState: "success", output: { tag: "beside", count: 1 } });

    // Idle connections past the budget are answered 503 at once and closed; the host stays up. The followers still
    // hold their connections, so at least 20 - HEALTH_RESERVE of these are past it.
    const sockets: Socket[] = [];
    const answered: string[] = [];
    for (let i = 0; i < maxConnections + 20; i++) {
      const socket = connect(host.port, "127.0.0.1");
      sockets.push(socket);
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString();
      });
      socket.on("error", () => undefined);
      socket.on("close", () => answered.push(text));
    }
    await expect
      .poll(() => answered.filter((text) => text.startsWith("HTTP/1.1 503")).length)
      .toBeGreaterThanOrEqual(12);
    expect(answered.find((text) => text.startsWith("HTTP/1.1 503"))).toContain('"code":"at_capacity"');
    for (const socket of sockets) socket.destroy();
    aborts.abort();
    await expect.poll(async () => (await host.api("GET", "/health")).status).toBe(200);
    expect(host.exitCode).toBeNull();
    counter.release("held");
  });
});
