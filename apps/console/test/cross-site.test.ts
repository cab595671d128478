/**
 * A host without keys (the quick start's default) against other web sites, from a real page in Chromium: a page on
 * another origin sends what a browser lets any page send without asking first — POSTs with a JSON body typed as
 * text/plain or not typed at all (`mode: "no-cors"`), and a bodiless POST — and a page on a domain that resolves to
 * 127.0.0.1 (DNS rebinding, mapped with Chromium's resolver rules) reads and writes the host "same-origin". None of
 * it may change or read anything: the host's records, read over its API from the test, say so.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "../../host/test/support/host.js";
import { openBrowser, type Session } from "./support/browser.js";

const EVIL_NAME = "rebind.cyrnel-test";

describe("a host without keys refuses other web sites", () => {
  let host: TestHost;
  let evil: Server;
  let evilUrl: string;
  let session: Session;
  let sleeper: number;

  beforeAll(async () => {
    host = await startHost();
    evil = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>another site</title>");
    });
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
    session = await openBrowser(undefined, [`--host-resolver-rules=MAP ${EVIL_NAME} 127.0.0.1`]);
    // A process of the operator's own, for a page to try to kill.
    const created = await host.api("POST", "/processes", {
      code: "await new Promise((resolve) => setTimeout(resolve, 120_000));",
      timeoutMs: 180_000,
    });
    expect(created.status, created.text).toBe(201);
    sleeper = created.body.id;
    while ((await host.api("GET", `/processes/${sleeper}`)).body.state !== "running") {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  afterAll(async () => {
    await session?.close();
    await host?.stop();
    await new Promise((resolve) => evil?.close(resolve));
  });

  it("changes nothing for a page on another origin sending simple requests", async () => {
    await session.page.goto(evilUrl);
    const sent = await session.page.evaluate(async (target) => {
      const json = (value: unknown) => JSON.stringify(value);
      const attempts = [
        // No Content-Type at all: a Blob without a type.
        fetch(`${target}/processes`, {
          method: "POST",
          mode: "no-cors",
          body: new Blob([json({ code: "cyrnel.output({ pwned: true })" })]),
        }),
        // JSON typed as text/plain.
        fetch(`${target}/services`, {
          method: "POST",
          mode: "no-cors",
          headers: { "content-type": "text/plain" },
          body: json({ id: "pwned", adapter: "openapi", definition: "{}" }),
        }),
        // A bodiless POST that changes state.
        fetch(`${target}/processes/1/signals/kill`, { method: "POST", mode: "no-cors" }),
      ];
      return (await Promise.allSettled(attempts)).map((attempt) => attempt.status);
    }, host.url);
    // The browser sent them (opaque answers); what matters is what the host did.
    expect(sent).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
    const processes = (await host.api("GET", "/processes")).body.items;
    expect(processes.map((process: { id: number }) => process.id)).toEqual([sleeper]);
    expect(processes[0].state).toBe("running");
    expect((await host.api("GET", "/services/pwned")).status).toBe(404);
  });

  it("refuses a page whose domain rebinds to 127.0.0.1: it can neither read nor write", async () => {
    const rebound = `http://${EVIL_NAME}:${host.port}`;
    // Any answer makes the page's origin the rebound name; /health answers under any name (load balancers use it).
    await session.page.goto(`${rebound}/health`);
    const answers = await session.page.evaluate(async () => {
      const read = await fetch("/services");
      const write = await fetch("/processes", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code: "cyrnel.output({ pwned: true })" }),
      });
      return [
        { status: read.status, body: await read.json() },
        { status: write.status, body: await write.json() },
      ];
    });
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe("cross_site_refused");
      expect(answer.body.error).toContain(EVIL_NAME);
    }
    expect((await host.api("GET", "/processes")).body.items).toHaveLength(1);
  });

  it("still serves its own console and local tools", async () => {
    await session.page.goto(`${host.url}/ui/`);
    const own = await session.page.evaluate(async () => (await fetch("/services")).status);
    expect(own).toBe(200);
    expect((await host.api("GET", "/services")).status).toBe(200);
  });
});
