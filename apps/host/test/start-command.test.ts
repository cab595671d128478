/**
 * `node bin/cyrnel.js start`, as the README and a supervisor run it: one process. The PID a supervisor started is
 * the host's own (no re-executed child that outlives a SIGKILL of its launcher and holds the port), and processes
 * still run: only the sandbox processes load isolated-vm, and they are forked with the flag it wants.
 */
import { readFileSync } from "node:fs";
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

  it("keeps serving, without spinning, when whoever reads its log goes away", async () => {
    const host = await startHost();
    hosts.push(host);
    const pid = host.child.pid as number;
    // The reader goes: the host's next log line fails with EPIPE.
    host.child.stdout!.destroy();
    const ran = await host.api("POST", "/processes", { code: "console.log('logged');", block: true });
    expect(ran.body.exitState, ran.text).toBe("success");
    // Idle, it uses next to no CPU. The failing write used to be an uncaught exception, logged to the same broken
    // output, failing again: the host spun a core (2 s of CPU in 2 s). /proc counts in ticks of 1/100 s.
    const cpuSeconds = () => {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      return (Number(fields[11]) + Number(fields[12])) / 100;
    };
    const before = cpuSeconds();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(cpuSeconds() - before).toBeLessThan(0.5);
    expect((await host.api("GET", "/health")).status).toBe(200);
    // Said once where it can still be read (stderr).
    expect(host.output.join("\n")).toContain("cyrnel: the log output failed (EPIPE); no more log lines are written");
  });
});
