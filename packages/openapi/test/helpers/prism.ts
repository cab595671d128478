import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";

/**
 * Prism (`@stoplight/prism-cli`), a mock server that validates every
 * request against the document it serves, as a child process on a free
 * loopback port. Readiness is polled (its "listening" line, then a real
 * HTTP answer) with a generous cap: a large document takes a while to load
 * on a busy 2-core machine.
 */

const PRISM_BIN = join(
  dirname(createRequire(import.meta.url).resolve("@stoplight/prism-cli/package.json")),
  "dist/index.js",
);

export interface Prism {
  url: string;
  /** Everything Prism printed so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

export async function startPrism(documentPath: string, readyWithinMs = 180_000): Promise<Prism> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [PRISM_BIN, "mock", "--host", "127.0.0.1", "--port", String(port), documentPath],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  let listening = false;
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-20_000);
    if (output.includes("Prism is listening")) listening = true;
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited(child);
  };
  const deadline = Date.now() + readyWithinMs;
  while (!(listening && (await answers(url)))) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`Prism exited (${child.exitCode ?? child.signalCode}) before listening:\n${output}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Prism did not listen within ${readyWithinMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { url, output: () => output, stop };
}
