/**
 * `node bin/cyrnel.js start`, as the README and a supervisor run it: one process. The PID a supervisor started is
 * the host's own (no re-executed child that outlives a SIGKILL of its launcher and holds the port), and processes
 * still run: only the sandbox processes load isolated-vm, and they are forked with the flag it wants.
 */
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("the start command", () => {
  const hosts: TestHost[] = [];
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.kill();
  });

  it("is one process: the PID started is the host's, a SIGKILL of it frees the port, and processes run", async () => {
    const port = await freePort();
    const first = await startHost({ nodeArgs: [], env: { CYRNEL_PORT: String(port) } });
    hosts.push(first);
    const listening = await first.waitForLog((entry) => entry.msg === "listening");
    expect(listening.pid).toBe(first.child.pid);
    const ran = await first.api("POST", "/processes", { code: "cyrnel.output({ sum: 1 + 1 });", block: true });
    expect(ran.body, ran.text).toMatchObject({ exitState: "success", output: { sum: 2 } });

    await first.kill();
    const second = await startHost({ nodeArgs: [], env: { CYRNEL_PORT: String(port) } });
    hosts.push(second);
    expect(second.port).toBe(port);
    expect((await second.api("GET", "/health")).status).toBe(200);
  });
});
