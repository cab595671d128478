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
import { ADMIN_KEY, startWeather, type TestHost, type Upstream } from "./support/hosts.js";

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

/** A small OpenAPI service with two destructive operations (DELETE), installed from its text. */
const NOTES = JSON.stringify({
  openapi: "3.0.3",
  info: { title: "Notes", version: "1.0.0" },
  servers: [{ url: "http://127.0.0.1:9/notes" }],
  paths: {
    "/notes": {
      get: { operationId: "listNotes", responses: { 200: { description: "ok" } } },
      post: { operationId: "createNote", responses: { 201: { description: "ok" } } },
      delete: { operationId: "purgeNotes", responses: { 204: { description: "gone" } } },
    },
    "/notes/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      get: { operationId: "getNote", responses: { 200: { description: "ok" } } },
      delete: { operationId: "deleteNote", responses: { 204: { description: "gone" } } },
    },
  },
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

  /** The restarted host resumed the run: the page follows it live again; then it is killed through the API. */
  async function followedAgainThenKilled(id: number) {
    await expect.poll(async () => (await hostApi("GET", `/processes/${id}`)).body.state).toBe("running");
    await page().getByRole("status").getByText("live", { exact: true }).waitFor();
    expect((await hostApi("POST", `/processes/${id}/signals/kill`)).status).toBe(200);
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
    // The same data dir on the same port: the restart resumes the run (it is durable), which the page follows live
    // again; killed, the page shows its end.
    host = await restart(host, { env: { ...ENV, CYRNEL_PORT: String(port) } });
    await followedAgainThenKilled(id);
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
    await followedAgainThenKilled(id);
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

describe("safer policy and re-runs", () => {
  it("does not save a rule that matches every tool, and previews what a rule matches", async () => {
    const installed = await hostApi("POST", "/services", { id: "notes", adapter: "openapi", definition: NOTES });
    expect(installed.status).toBe(201);
    await page().goto(ui("services/notes"));
    const policy = page().getByRole("region", { name: "Policy" });
    await policy.getByRole("button", { name: "Add rule" }).click();
    const rule = policy.getByRole("group", { name: "Rule 1" });
    await policy.getByTestId("rule-1-preview").getByText("Give a tool pattern").waitFor();
    // Saving the empty rule is refused by the form: the pattern is required, and nothing reaches the host.
    await policy.getByRole("button", { name: "Save policy" }).click();
    expect(
      await rule.getByLabel("Tools (glob)").evaluate((input: HTMLInputElement) => input.validity.valueMissing),
    ).toBe(true);
    expect((await hostApi("GET", "/services/notes/policy")).body).toEqual({
      default: "allow",
      rules: [],
      approvalTimeoutMs: null,
    });

    await rule.getByLabel("Tools (glob)").fill("*Note");
    const preview = policy.getByTestId("rule-1-preview");
    await preview.getByText("Matches 3 of 5 tools: createNote, getNote, deleteNote.").waitFor();
    await rule.getByLabel("Tools (glob)").fill("nothing*");
    await preview.getByText("Matches no tool of this service.").waitFor();
  });

  it("suggests ask for destructive tools the policy lets run, in one click", async () => {
    const policy = page().getByRole("region", { name: "Policy" });
    // The draft's rule 1 is an `ask` that matches nothing: both DELETEs run without asking.
    const warning = policy.getByRole("note", { name: "Destructive tools allowed" });
    await warning.getByText("2 destructive tools run without asking:").waitFor();
    expect(await warning.textContent()).toContain("purgeNotes, deleteNote");
    await policy.getByRole("group", { name: "Rule 1" }).getByLabel("Tools (glob)").fill("purge*");
    await policy.getByRole("group", { name: "Rule 1" }).getByLabel("Action").selectOption("deny");
    await warning.getByText("1 destructive tool runs without asking:").waitFor();
    await warning.getByRole("button", { name: "Ask before destructive tools" }).click();
    await warning.waitFor({ state: "detached" });
    await policy.getByRole("button", { name: "Save policy" }).click();
    await policy.getByText("Policy saved.").waitFor();
    // The suggested rule goes after the deny: purgeNotes stays denied, deleteNote now asks.
    expect((await hostApi("GET", "/services/notes/policy")).body).toEqual({
      default: "allow",
      rules: [
        { tools: "purge*", action: "deny" },
        { destructive: true, action: "ask" },
      ],
      approvalTimeoutMs: null,
    });
    // The next edit clears the note: it no longer describes the form.
    await policy.getByLabel("Default action").selectOption("ask");
    await policy.getByText("Policy saved.").waitFor({ state: "detached" });
  });

  it("asks before leaving the page with unsaved edits", async () => {
    const policy = page().getByRole("region", { name: "Policy" });
    // The default is still the unsaved `ask` of the last step. A link inside the console: "stay" keeps the page.
    const asked: string[] = [];
    page().once("dialog", (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page().getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tools", exact: true }).click();
    expect(asked).toEqual(["The policy has unsaved changes. Leave without saving them?"]);
    expect(new URL(page().url()).pathname).toBe("/ui/services/notes");
    expect(await policy.getByLabel("Default action").inputValue()).toBe("ask");
    // A reload asks too (the browser's own beforeunload dialog).
    const unload = new Promise<string>((resolve) =>
      page().once("dialog", (dialog) => {
        resolve(dialog.type());
        void dialog.dismiss();
      }),
    );
    void page()
      .reload()
      .catch(() => {});
    expect(await unload).toBe("beforeunload");
    // Saved, nothing asks any more.
    await policy.getByRole("button", { name: "Save policy" }).click();
    await policy.getByText("Policy saved.").waitFor();
    await page().getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tools", exact: true }).click();
    await page().getByRole("heading", { name: "Tools", level: 1 }).waitFor();
  });

  it("asks before running a process again, saying it repeats side effects", async () => {
    const created = await hostApi("POST", "/processes", { code: 'console.log("once")', typecheck: false, block: true });
    const id = created.body.id as number;
    await page().goto(ui(`processes/${id}`));
    await page().getByRole("button", { name: "Run again" }).click();
    const confirm = page().getByRole("dialog", { name: `Run process ${id} again?` });
    expect(await confirm.textContent()).toContain("every tool call it makes is made again");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    expect((await hostApi("GET", `/processes/${id}`)).body.finishedAt).toBe(created.body.finishedAt);
    await page().getByRole("button", { name: "Run again" }).click();
    await confirm.getByRole("button", { name: "Run again" }).click();
    await confirm.waitFor({ state: "hidden" });
    // "Run again" was on the page before the re-run too (and the host's finishedAt is null while it runs): wait for
    // the page to show the finish time of the new run instead.
    await page().waitForFunction((before) => {
      const finished = Array.from(document.querySelectorAll(".facts dt")).find((dt) => dt.textContent === "Finished");
      const at = finished?.nextElementSibling?.querySelector("time")?.getAttribute("datetime");
      return typeof at === "string" && at !== before;
    }, created.body.finishedAt);
    await page().getByRole("button", { name: "Run again" }).waitFor();
    const again = (await hostApi("GET", `/processes/${id}`)).body;
    expect(again.finishedAt).not.toBe(created.body.finishedAt);
  });
});

describe("lists", () => {
  it("pages processes, filters them by ref prefix, caller name and time, and sorts them", async () => {
    const agent = await hostApi("POST", "/keys", { name: "lister", role: "agent" });
    expect(agent.status).toBe(201);
    const asAgent = { authorization: `Bearer ${agent.body.key}` };
    const ids: number[] = [];
    for (let i = 0; i < 103; i++) {
      const created = await hostApi("POST", "/processes", { code: "1", ref: `bulk-${i}`, typecheck: false });
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    const mine = await host.api("POST", "/processes", { code: "1", ref: "bulk-agent", typecheck: false }, asAgent);
    expect(mine.status).toBe(201);
    await hostApi("POST", "/processes", { code: "1", ref: "bulky", typecheck: false });

    await page().goto(ui("processes"));
    await page().getByLabel("Ref starts with").fill("bulk-");
    await page().getByLabel("Ref starts with").press("Enter");
    const table = page().getByRole("table", { name: "Processes" });
    const rows = table.locator("tbody tr");
    // The unfiltered list also reads "Page 1: 100 processes, more on the next" (105 rows, "bulky" first), so wait
    // for the filtered rows themselves rather than for that line.
    await page().waitForFunction(() =>
      document.querySelector('table[aria-label="Processes"] tbody tr')?.textContent?.includes("bulk-agent"),
    );
    await page().getByText("Page 1: 100 processes, more on the next").waitFor();
    expect(await table.textContent()).not.toContain("bulky");
    await page().getByRole("button", { name: "Older" }).click();
    await page().getByText("Page 2: 4 processes").waitFor();
    expect(await rows.last().textContent()).toContain(`#${ids[0]}`);
    await page().getByRole("button", { name: "Newer" }).click();
    await page().getByText("Page 1: 100 processes, more on the next").waitFor();

    // Oldest first: the first created leads.
    await page().getByLabel("Order").selectOption("oldest");
    await page().waitForFunction(
      (first) => document.querySelector('table[aria-label="Processes"] tbody tr')?.textContent?.includes(`#${first} `),
      ids[0],
    );
    expect(new URL(page().url()).searchParams.get("order")).toBe("oldest");

    // The caller filter lists keys by name; each row names its caller.
    await page().getByLabel("Caller").selectOption({ label: "lister" });
    await page().getByText("Page 1: 1 process").waitFor();
    // The row first shows its caller's key id: the name comes from a read of the key names after the row is drawn.
    await expect.poll(() => rows.first().textContent()).toContain("lister");
    expect(new URL(page().url()).searchParams.get("keyId")).toBe(agent.body.id);
    await page().getByLabel("Caller").selectOption({ label: "anyone" });

    // A time range that ends before the first was created finds none.
    const before = new Date(Date.parse((await hostApi("GET", `/processes/${ids[0]}`)).body.createdAt) - 60_000);
    const local = new Date(before.getTime() - before.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page().getByLabel("Until").fill(local);
    await page().getByText("No process matches.").waitFor();
  });

  it("pages the tools past the first 100, with the total", async () => {
    const paths = Object.fromEntries(
      Array.from({ length: 120 }, (_, i) => [
        `/items${i}`,
        { get: { operationId: `getItem${String(i).padStart(3, "0")}`, responses: { 200: { description: "ok" } } } },
      ]),
    );
    const definition = JSON.stringify({
      openapi: "3.0.3",
      info: { title: "Many", version: "1.0.0" },
      servers: [{ url: "http://127.0.0.1:9/many" }],
      paths,
    });
    expect((await hostApi("POST", "/services", { id: "many", adapter: "openapi", definition })).status).toBe(201);
    await page().goto(ui("tools?service=many"));
    const range = page().getByTestId("tools-range");
    await range.getByText("1–100 of 120").waitFor();
    await page().getByRole("button", { name: "Next" }).click();
    await range.getByText("101–120 of 120").waitFor();
    expect(await page().locator(".tool-list > li").count()).toBe(20);
    await page().getByText("many.getItem119").waitFor();
    await page().getByRole("button", { name: "Previous" }).click();
    await range.getByText("1–100 of 120").waitFor();
  });

  it("asks before creating an agent key for services that are not installed", async () => {
    await page().goto(ui("keys"));
    await page().getByLabel("Name").fill("typo-agent");
    await page()
      .getByLabel(/^Services/)
      .fill("notes, nots");
    await page().getByRole("button", { name: "Create key" }).click();
    const warning = page().getByRole("alert").filter({ hasText: "No service is installed as" });
    await warning.waitFor();
    expect(await warning.textContent()).toContain("“nots”");
    expect(await warning.textContent()).not.toContain("“notes”");
    expect((await hostApi("GET", "/keys")).body.items.map((k: any) => k.name)).not.toContain("typo-agent");
    // "Create anyway" creates the key as typed (the host allows a service that is installed later).
    await warning.getByRole("button", { name: "Create anyway" }).click();
    await page().getByTestId("created-key").waitFor();
    await page().getByRole("button", { name: "Done" }).click();
    const created = (await hostApi("GET", "/keys")).body.items.find((k: any) => k.name === "typo-agent");
    expect(created.services).toEqual(["notes", "nots"]);
  });
});

it("made no request beyond the host, and the CSP refused nothing", () => {
  const foreign = session.requests.filter((url) => !url.startsWith(`${host.url}/`) && !url.startsWith("data:"));
  expect(foreign).toEqual([]);
  expect(session.cspViolations).toEqual([]);
});
