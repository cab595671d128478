/**
 * The console at operator scale, end to end in real Chromium against the real host: a big service (GitHub's REST
 * API, 1,223 tools) paged with its totals, filtered, switched one row at a time without losing focus or reading the
 * list again, and switched in bulk; and 30 pending approvals, counted in the navigation and the title, filtered,
 * shown with their expiry, destructive badges and key names, and decided in a few clicks with one reason each.
 * What the operator sees is checked against what the host then holds.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openBrowser, type Session } from "./support/browser.js";
import { ADMIN_KEY, startConsoleHost, type TestHost } from "./support/hosts.js";

/** GitHub's REST description, as the host's own suites and benches read it. */
const GITHUB = createRequire(join(import.meta.dirname, "..", "..", "host", "package.json")).resolve(
  "@octokit/openapi/generated/api.github.com.json",
);
const APPROVALS = 30;

let host: TestHost;
let session: Session;

beforeAll(async () => {
  host = await startConsoleHost();
  session = await openBrowser();
  expect(
    (
      await host.api("POST", "/services", {
        id: "github",
        adapter: "openapi",
        definition: readFileSync(GITHUB, "utf8"),
      })
    ).status,
  ).toBe(201);
});

afterEach(async (context) => {
  if (context.task.result?.state !== "fail" || !session) return;
  const path = join(tmpdir(), `cyrnel-console-scale-failure-${context.task.name.replace(/\W+/g, "-")}.png`);
  await session.page.screenshot({ path, fullPage: true }).catch(() => {});
  console.error(`screenshot of the failure: ${path}`);
});

afterAll(async () => {
  await session?.close();
  await host?.stop();
});

const ui = (path = "") => `${host.url}/ui/${path}`;
const page = () => session.page;
const nav = (name: string) => page().getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });

type Tool = { id: string; name: string; enabled: boolean; annotations: { destructive?: boolean } };
async function githubTools(): Promise<Tool[]> {
  const first = await host.api("GET", "/tools?serviceId=github&limit=1000");
  const rest = await host.api("GET", `/tools?serviceId=github&limit=1000&cursor=${first.body.nextCursor}`);
  return [...first.body.items, ...rest.body.items];
}

/** A service of `count` generated operations on an unreachable server; every third one a DELETE (destructive). */
function generatedDocument(count: number): string {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const method = i % 3 === 0 ? "delete" : "post";
    paths[`/things${i}/{id}`] = {
      [method]: {
        operationId: `makeThing${i}`,
        summary: `Make thing number ${i}`,
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { 200: { description: "ok", content: { "application/json": { schema: { type: "object" } } } } },
      },
    };
  }
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Many", version: "1" },
    servers: [{ url: "http://127.0.0.1:1" }],
    paths,
  });
}

describe("the console at operator scale", () => {
  it("signs in", async () => {
    await page().goto(ui());
    await page().getByLabel("Admin key").fill(ADMIN_KEY);
    await page().getByRole("button", { name: "Sign in" }).click();
    await page().getByRole("heading", { name: "Overview", level: 1 }).waitFor();
  });

  it("shows every one of GitHub's 1,223 tools, a page at a time, with the totals and a filter", async () => {
    const tools = await githubTools();
    expect(tools).toHaveLength(1223);
    await page().goto(ui("services/github"));
    const tools100 = page().getByText("Showing 1–100 of 1,223 tools");
    await tools100.waitFor();
    expect(
      await page()
        .getByRole("switch", { name: /^Tool .* enabled$/ })
        .count(),
    ).toBe(100);
    await page().getByRole("navigation", { name: "Tool pages" }).getByText("Page 1 of 13").waitFor();

    // The last page holds the last tool (the old page stopped at 1,000).
    for (let n = 1; n < 13; n++) await page().getByRole("button", { name: "Next" }).click();
    await page().getByText("Showing 1,201–1,223 of 1,223 tools").waitFor();
    await page()
      .getByRole("switch", { name: `Tool ${tools.at(-1)!.id} enabled` })
      .waitFor();

    const needle = "delete";
    const matching = tools.filter((tool) => `${tool.id}\n${tool.name}`.toLowerCase().includes(needle));
    await page().getByLabel("Filter", { exact: true }).fill(needle);
    await page()
      .getByText(`Showing 1–${Math.min(100, matching.length)} of ${matching.length} matching · 1,223 tools`)
      .waitFor();
    await page().getByLabel("Filter", { exact: true }).fill("");
    await tools100.waitFor();
  });

  it("switches one tool: only its row changes, focus stays on it, the list is not read again", async () => {
    const tool = (await githubTools())[3]!;
    const control = page().getByRole("switch", { name: `Tool ${tool.id} enabled` });
    const listReads = () => session.requests.filter((url) => url.includes("/tools?")).length;
    const reads = listReads();
    await control.focus();
    await page().keyboard.press("Space");
    await expect.poll(() => control.getAttribute("aria-checked")).toBe("false");
    expect(await page().evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
      `Tool ${tool.id} enabled`,
    );
    expect((await host.api("GET", `/tools/github/${tool.id}`)).body.enabled).toBe(false);
    await page().keyboard.press("Space");
    await expect.poll(() => control.getAttribute("aria-checked")).toBe("true");
    expect(await control.evaluate((element) => element === document.activeElement)).toBe(true);
    expect((await host.api("GET", `/tools/github/${tool.id}`)).body.enabled).toBe(true);
    expect(listReads()).toBe(reads);
  });

  it("disables every destructive tool at once, and enables the filtered ones again", async () => {
    const destructive = (await githubTools()).filter((tool) => tool.annotations.destructive).map((tool) => tool.id);
    expect(destructive.length).toBeGreaterThan(0);
    await page()
      .getByRole("button", { name: `Disable all ${destructive.length} destructive` })
      .click();
    await page().getByRole("status").getByText(`Disabled ${destructive.length} tools.`).waitFor();
    const after = await githubTools();
    expect(
      after
        .filter((tool) => !tool.enabled)
        .map((tool) => tool.id)
        .sort(),
    ).toEqual([...destructive].sort());

    await page().getByLabel("Show").selectOption("disabled");
    await page().getByText(`of ${destructive.length} matching · 1,223 tools`).waitFor();
    await page()
      .getByRole("button", { name: `Enable the ${destructive.length} filtered` })
      .click();
    await page().getByRole("status").getByText(`Enabled ${destructive.length} tools.`).waitFor();
    expect((await githubTools()).every((tool) => tool.enabled)).toBe(true);
    await page().getByText("No tool matches (1,223 tools).").waitFor();
  });

  it("counts 30 pending approvals in the navigation and the title, and decides them in a few clicks", async () => {
    expect(
      (
        await host.api("POST", "/services", {
          id: "many",
          adapter: "openapi",
          definition: generatedDocument(APPROVALS),
          enabled: true,
        })
      ).status,
    ).toBe(201);
    await host.api("PUT", "/services/many/policy", { rules: [{ tools: "makeThing*", action: "ask" }] });
    const agent = await host.api("POST", "/keys", { name: "nightly-agent", role: "agent", services: ["many"] });
    const calls = Array.from(
      { length: APPROVALS },
      (_, i) => `cyrnel.services.many.tools.makeThing${i}.invoke({ id: "x" })`,
    );
    const started = await host.api(
      "POST",
      "/processes",
      {
        typecheck: false,
        code: `const settled = await Promise.allSettled([${calls.join(", ")}]);
cyrnel.output({ outcomes: settled.map((one) => one.status === "fulfilled" ? "ok" : (one.reason as { code?: string }).code) });`,
      },
      { authorization: `Bearer ${agent.body.key}` },
    );
    expect(started.status, started.text).toBe(201);
    await expect
      .poll(async () => (await host.api("GET", "/stats")).body.approvals.pending, { timeout: 60_000 })
      .toBe(APPROVALS);

    await page().goto(ui("approvals"));
    const inbox = nav("Approvals");
    await expect.poll(() => inbox.textContent()).toContain(String(APPROVALS));
    expect(await page().locator("#pending-count").textContent()).toBe(`${APPROVALS} pending`);
    await expect.poll(() => page().title()).toBe(`(${APPROVALS}) Approvals · cyrnel`);

    // Each card: its key's name, when it expires, and a badge on the destructive ones (every third).
    const cards = page()
      .locator('section[aria-labelledby="pending-title"]')
      .getByRole("article", { name: /^Approval \d+: many\.makeThing/ });
    await expect.poll(() => cards.count()).toBe(APPROVALS);
    const first = cards.first();
    // A card first shows its key's id: the name comes from a read of the key names after the card is drawn.
    await expect.poll(() => first.getByText("nightly-agent").count()).toBe(1);
    expect(await first.textContent()).toMatch(/expires in (10 minutes|\d+ seconds)/);
    expect(await page().locator("article.approval .badge-bad").filter({ hasText: "destructive" }).count()).toBe(
      APPROVALS / 3,
    );

    // Filters: one tool, then one key.
    await page().getByLabel("Tool", { exact: true }).fill("makeThing7");
    await expect.poll(() => cards.count()).toBe(1);
    await page().getByLabel("Tool", { exact: true }).fill("");
    await page().getByLabel(/^Key/).selectOption({ label: "bootstrap (CYRNEL_API_KEY)" });
    await page().getByText("Nothing waits that matches the filters.").waitFor();
    await page().getByLabel(/^Key/).selectOption({ label: "nightly-agent" });
    await expect.poll(() => cards.count()).toBe(APPROVALS);

    // Five denied together with one reason, then the other 25 approved together: 4 + 4 clicks beside the 5 picks.
    const denied: number[] = [];
    for (let i = 0; i < 5; i++) {
      const card = cards.nth(i);
      denied.push(Number(/^Approval (\d+)/.exec((await card.getAttribute("aria-label"))!)![1]));
      await card.getByRole("checkbox").check();
    }
    await page().getByRole("button", { name: "Deny 5 selected" }).click();
    const denyDialog = page().getByRole("dialog", { name: "Deny 5 calls" });
    await denyDialog.getByLabel(/^Reason/).fill("not tonight");
    await denyDialog.getByRole("button", { name: "Deny 5 calls" }).click();
    await page().getByRole("status").getByText("Denied 5 of 5.").waitFor();
    await expect.poll(() => cards.count()).toBe(APPROVALS - 5);

    await page()
      .getByRole("checkbox", { name: `Select all ${APPROVALS - 5} shown` })
      .check();
    await page()
      .getByRole("button", { name: `Approve ${APPROVALS - 5} selected` })
      .click();
    const approveDialog = page().getByRole("dialog", { name: `Approve ${APPROVALS - 5} calls` });
    await approveDialog.getByText(/of them call a tool annotated destructive/).waitFor();
    await approveDialog.getByLabel(/^Reason/).fill("batch checked");
    await approveDialog.getByRole("button", { name: `Approve ${APPROVALS - 5} calls` }).click();
    await page()
      .getByRole("status")
      .getByText(`Approved ${APPROVALS - 5} of ${APPROVALS - 5}.`)
      .waitFor();
    await page().getByText("Nothing waits that matches the filters.").waitFor();

    // The host holds each decision as the single route would have made it; the count leaves the navigation.
    const id = started.body.id as number;
    const approvals = (await host.api("GET", `/approvals?processId=${id}`)).body.items as Record<string, any>[];
    expect(approvals).toHaveLength(APPROVALS);
    for (const approval of approvals) {
      const wasDenied = denied.includes(approval.id);
      expect(approval).toMatchObject({
        state: wasDenied ? "denied" : "approved",
        reason: wasDenied ? "not tonight" : "batch checked",
        decidedBy: null,
      });
    }
    await expect.poll(async () => (await host.api("GET", `/processes/${id}`)).body.state).toBe("idle");
    const outcomes = (await host.api("GET", `/processes/${id}/output`)).body.outcomes as string[];
    expect(outcomes.filter((outcome) => outcome === "approval_denied")).toHaveLength(5);
    // Approved calls reach the adapter (whose server does not exist): none of them was refused by the approvals.
    expect(outcomes.filter((outcome) => outcome?.startsWith("approval_"))).toHaveLength(5);
    await expect.poll(() => page().title()).toBe("Approvals · cyrnel");
    expect(await page().locator("#pending-count").count()).toBe(0);
  });
});
