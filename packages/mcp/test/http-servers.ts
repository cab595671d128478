import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { referenceServer } from "./support.js";

/** A free loopback port (the OS picks one; the server started next binds it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** server-everything in one of its HTTP modes (`streamableHttp`, `sse`) on `port`, once it says it listens. */
export async function everythingOverHttp(mode: "streamableHttp" | "sse", port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [referenceServer("everything"), mode], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (/(listening on|running on) port/i.test(output)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server-everything ${mode} exited with ${code}: ${output}`)));
  });
  return child;
}

export async function stopServer(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}
