/**
 * The console at operator scale, end to end in Chromium against the real host: a live process page that recovers
 * (the host restarts under it; the host refuses it as a follower), the lists (processes paged, sorted, by time and
 * ref prefix; tools past the first page; revoked keys; an agent key's unknown services), and the safer policy editor
 * and re-runs. The host runs with one live follower per process (CYRNEL_PROCESS_FOLLOWERS_LIMIT=1), so that a
 * second follower is refused.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { restart, startHost } from "../../host/test/support/host.js";
import { openBrowser, type Session } from "./support/browser.js";
import { ADMIN_KEY, DEMO_TOKEN, startWeather, type TestHost, type Upstream } from "./support/hosts.js";

const ENV = { CYRNEL_API_KEY: ADMIN_KEY, CYRNEL_PROCESS_FOLLOWERS_LIMIT: "1" };
const FOREVER = { code: 'console.log("waiting"); await new Promise(() => {});', timeoutMs: 600000, typecheck: false };

let host: TestHost;
let weather: Upstream;
let session: Session;

beforeAll(async () => {
  [host, weather] = await Promise.all([startHost({ env: ENV }), startWeather()]);
  session = await openBrowser();
});

afterEach(async (context) => {
  if (context.task.result?.state !== "fail" || !session) return;
  const path = join(tmpdir(), `cyrnel-console-failure-${context.task.name.replace(/\W+/g, "-")}.png`);
  await session.page.screenshot({ path, fullPage: true }).catch(() => {});
  console.error(`screenshot of the failure: ${path}`);
});

afterAll(async () => {
  await session?.close();
  await host?.stop();
  await weather?.close();
});

const ui = (path = "") => `${host.url}/ui/${path}`;
const page = () => session.page;
const hostApi = (method: string, path: string, body?: unknown) => host.api(method, path, body);

async function signIn() {
  await page().goto(ui());
  await page().getByLabel("Admin key").fill(ADMIN_KEY);
  await page().getByRole("button", { name: "Sign in" }).click();
  await page().getByRole("heading", { name: "Overview", level: 1 }).waitFor();
}

describe("a live process page recovers", () => {
  it("signs in", signIn);

  /** A process that waits forever, its page open and following it live. */
  async function livePage(ref: string): Promise<number> {
    const created = await hostApi("POST", "/processes", { ...FOREVER, ref });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    await page().goto(ui(`processes/${id}`));
    await page().getByTestId("stdout").getByText("waiting").waitFor();
    await page().getByRole("button", { name: "Kill" }).waitFor();
    await page().getByRole("status").getByText("live", { exact: true }).waitFor();
    return id;
  }

  /** The page shows what the host recorded: idle with its exit state, no Kill button, no banner, its stdout. */
  async function convergedTo(id: number) {
    const recorded = (await hostApi("GET", `/processes/${id}`)).body;
    expect(recorded).toMatchObject({ state: "idle" });
    await page().getByRole("button", { name: "Run again" }).waitFor();
    expect(await page().getByRole("button", { name: "Kill" }).count()).toBe(0);
    const facts = page().locator(".facts");
    await facts.getByText(recorded.exitState, { exact: true }).waitFor();
    expect(await facts.getByText("running", { exact: true }).count()).toBe(0);
    await page().getByTestId("live-banner").waitFor({ state: "detached" });
    await page()
      .getByText(/Could not read the process again/)
      .waitFor({ state: "detached" });
    // The stdout the host kept (a crashed host kept none of a run it never finished).
    const stdout = (await hostApi("GET", `/processes/${id}/stdout`)).text;
    await page()
      .getByTestId("stdout")
      .getByText(stdout === "" ? "empty" : stdout.trim())
      .waitFor();
  }

  it("converges to the recorded end after the host restarts under it", async () => {
    const id = await livePage("restart-me");
    const port = host.port;
    await host.stop();
    // While the host is down, the page says that it cannot read the record (and keeps trying).
    await page()
      .getByRole("alert")
      .getByText(/Could not read the process again/)
      .waitFor();
    // The same data dir on the same port: the restart ends the interrupted run.
    host = await restart(host, { env: { ...ENV, CYRNEL_PORT: String(port) } });
    await convergedTo(id);
  });

  it("says it is reconnecting when the stream drops without an end, and converges once the host is back", async () => {
    const id = await livePage("crash-me");
    const port = host.port;
    // A crash: no end on the stream, the connection just drops.
    await host.kill();
    await page().getByTestId("live-banner").getByText("Reconnecting").waitFor();
    await page()
      .getByRole("alert")
      .getByText(/Could not read the process again/)
      .waitFor();
    host = await restart(host, { env: { ...ENV, CYRNEL_PORT: String(port) } });
    await convergedTo(id);
  });

  it("reads the record instead when the host refuses another follower, and says so", async () => {
    const created = await hostApi("POST", "/processes", { ...FOREVER, ref: "crowded" });
    const id = created.body.id as number;
    // Someone else holds the one follower seat of the process.
    const holder = new AbortController();
    const held = await fetch(`${host.url}/processes/${id}/events`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      signal: holder.signal,
    });
    expect(held.status).toBe(200);
    try {
      await page().goto(ui(`processes/${id}`));
      const banner = page().getByTestId("live-banner");
      await banner.getByText("Not following live").waitFor();
      expect(await banner.textContent()).toContain("too_many_followers");
      // The state comes from the record: running, with the Kill button.
      await page().locator(".facts").getByText("running", { exact: true }).waitFor();
      await page().getByRole("button", { name: "Kill" }).waitFor();

      // It ends elsewhere: the page converges to the record, and the ended process's texts arrive.
      expect((await hostApi("POST", `/processes/${id}/signals/kill`)).status).toBeLessThan(300);
      await page().getByRole("button", { name: "Run again" }).waitFor();
      await page().locator(".facts").getByText("canceled", { exact: true }).waitFor();
      await page().getByTestId("stdout").getByText("waiting").waitFor();
      await banner.waitFor({ state: "detached" });
    } finally {
      holder.abort();
    }
  });
});
