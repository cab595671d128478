// The console at operator scale, measured in a real Chromium: 3,000 tools (GitHub's REST API, 1,223 of them, and
// 1,777 generated), 10,000 processes and 30 pending approvals. For the overview, the approvals inbox and GitHub's
// service page: the time until the page shows what it is for, its DOM nodes, and the long tasks (over 50 ms, from a
// PerformanceObserver) while it loads; on the service page the time one tool switch takes to show its new state; in
// the inbox the time to decide all 30 at once when the page offers it. The processes page (10,001 processes) and the
// tools page (all 3,000, callable or not): shown, nodes, long tasks, and the time to the next page of 100; on the
// tools page also a ranked search over the 3,000.
//
// The processes are written straight into the database between two starts of the host (as stats.mjs does), the
// approvals are real: one process calls an `ask` tool 30 times at once. SQLite. HOST_BIN runs another build (its
// console included) to compare before and after.
import { mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findChromium } from "@cyrnel/test-servers";
import { startHost } from "./lib/host.mjs";

const PROCESSES = Number(process.env.PROCESSES ?? 10_000);
const GENERATED_TOOLS = Number(process.env.GENERATED_TOOLS ?? 1_777);
const APPROVALS = Number(process.env.APPROVALS ?? 30);
const TOGGLES = Number(process.env.TOGGLES ?? 5);
const require = createRequire(import.meta.url);
const githubPath = require.resolve("@octokit/openapi/generated/api.github.com.json");
// The console's own browser driver (the library only); the bench has no browser of its own.
const { chromium } = createRequire(join(import.meta.dirname, "..", "apps", "console", "package.json"))(
  "playwright-core",
);

function generatedDocument(operations) {
  const paths = {};
  for (let i = 0; i < operations; i++) {
    paths[`/things${i}/{id}`] = {
      post: {
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

function insertProcesses(dataDir) {
  const Database = createRequire(require.resolve("@cyrnel/host/package.json"))("better-sqlite3");
  const db = new Database(join(dataDir, "data.db"));
  try {
    db.exec(`
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${PROCESSES})
      INSERT INTO processes (state, exit_state, timeout_ms, code, runs, created_at, started_at, finished_at, ref)
      SELECT 'idle', CASE i % 10 WHEN 0 THEN 'failed' WHEN 1 THEN 'timeout' ELSE 'success' END, 30000,
             'cyrnel.output(1)', 1, ts, ts, ts, 'bench-' || i
      FROM (SELECT i, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (i * 60) || ' seconds') AS ts FROM n)`);
    db.exec("ANALYZE");
  } finally {
    db.close();
  }
}

/** Collects long tasks from the start of each document. */
const observeLongTasks = () => {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
  }).observe({ type: "longtask", buffered: true });
};

async function measurePage(page, path, ready) {
  const started = performance.now();
  await page.goto(path);
  await ready();
  const shown = performance.now() - started;
  // Let what the page does after showing its content (a second page of rows, a poll) land in the figures too.
  await page.waitForTimeout(1500);
  const { nodes, longTasks } = await page.evaluate(() => ({
    nodes: document.getElementsByTagName("*").length,
    longTasks: window.__longTasks,
  }));
  return {
    shownMs: Math.round(shown),
    domNodes: nodes,
    longTasks: longTasks.length,
    longestTaskMs: Math.round(Math.max(0, ...longTasks)),
    longTasksMs: Math.round(longTasks.reduce((a, b) => a + b, 0)),
  };
}

async function timed(action) {
  const started = performance.now();
  await action();
  return Math.round(performance.now() - started);
}

export async function consoleScale() {
  const dataDir = mkdtempSync(join(tmpdir(), "cyrnel-bench-console-"));
  await (await startHost({ CYRNEL_DATA_DIR: dataDir })).stop();
  insertProcesses(dataDir);
  const host = await startHost({ CYRNEL_DATA_DIR: dataDir, CYRNEL_INVOKE_TIMEOUT_MS: "300000" });
  const figures = {};
  try {
    await host.api("POST", "/services", {
      id: "github",
      adapter: "openapi",
      definition: readFileSync(githubPath, "utf8"),
    });
    await host.api("POST", "/services", {
      id: "many",
      adapter: "openapi",
      definition: generatedDocument(GENERATED_TOOLS),
      enabled: true,
    });
    await host.api("PUT", "/services/many/policy", { rules: [{ tools: "makeThing*", action: "ask" }] });
    const calls = Array.from(
      { length: APPROVALS },
      (_, i) => `cyrnel.services.many.tools.makeThing${i}.invoke({ id: "x" })`,
    ).join(",\n");
    await host.api("POST", "/processes", { typecheck: false, code: `await Promise.allSettled([${calls}]);` });
    for (let tries = 0; ; tries++) {
      const pending = await host.api("GET", `/approvals?state=pending&limit=1000`);
      if (pending.items.length === APPROVALS) break;
      if (tries > 600) throw new Error(`only ${pending.items.length} approvals pending`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const stats = await host.api("GET", "/stats");
    console.log(`tools ${stats.tools.total}, processes ${PROCESSES + 1}, pending approvals ${stats.approvals.pending}`);

    const found = await findChromium();
    if ("missing" in found) throw new Error(found.missing);
    const browser = await chromium.launch({
      executablePath: found.executablePath,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
      env: { ...process.env, ...found.env },
    });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      await context.addInitScript(observeLongTasks);
      const page = await context.newPage();
      page.setDefaultTimeout(120_000);
      await page.goto(`${host.url}/ui/`);
      await page.getByLabel("Admin key").fill("any");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();

      figures.overview = await measurePage(page, `${host.url}/ui/`, () =>
        page
          .getByText(/pending approvals?/i)
          .first()
          .waitFor(),
      );
      figures.approvals = await measurePage(page, `${host.url}/ui/approvals`, () =>
        page
          .getByRole("button", { name: "Approve", exact: true })
          .nth(APPROVALS - 1)
          .waitFor(),
      );
      const first = (await host.api("GET", "/tools?serviceId=github&limit=1")).items[0].id;
      figures.service = await measurePage(page, `${host.url}/ui/services/github`, () =>
        page.getByRole("switch", { name: `Tool ${first} enabled` }).waitFor(),
      );
      const shownTools = await page.getByRole("switch", { name: /^Tool .* enabled$/ }).count();
      figures.service.toolRowsInDom = shownTools;
      const toggles = [];
      for (let i = 0; i < TOGGLES; i++) {
        const control = page.getByRole("switch", { name: `Tool ${first} enabled` });
        const before = await control.getAttribute("aria-checked");
        const started = performance.now();
        await control.click();
        await page.waitForFunction(
          ([name, was]) => {
            const element = document.querySelector(`[role="switch"][aria-label="${name}"]`);
            return element && element.getAttribute("aria-checked") !== was && !element.disabled;
          },
          [`Tool ${first} enabled`, before],
        );
        toggles.push(performance.now() - started);
      }
      figures.service.toggleMs = Math.round(toggles.sort((a, b) => a - b)[Math.floor(toggles.length / 2)]);
      figures.service.focusAfterToggle = await page.evaluate(() => document.activeElement?.getAttribute("aria-label"));

      // The processes page over 10,001 processes: its first page of 100, then the next (the status line says which).
      const processesStatus = page.getByRole("status").filter({ hasText: /^Page \d+: / });
      figures.processes = await measurePage(page, `${host.url}/ui/processes`, () =>
        processesStatus.filter({ hasText: /^Page 1: 100 processes/ }).waitFor(),
      );
      figures.processes.nextPageMs = await timed(async () => {
        await page.getByRole("button", { name: "Older", exact: true }).click();
        await processesStatus.filter({ hasText: /^Page 2: 100 processes/ }).waitFor();
      });

      // The tools page with every tool, callable or not (GitHub's are disabled): the first 100 of 3,000, the next
      // 100, then a ranked search over all of them.
      const range = page.getByTestId("tools-range");
      figures.tools = await measurePage(page, `${host.url}/ui/tools?disabled=1`, () =>
        range.filter({ hasText: /^1–100 of / }).waitFor(),
      );
      figures.tools.range = await range.textContent();
      figures.tools.nextPageMs = await timed(async () => {
        await page.getByRole("button", { name: "Next", exact: true }).click();
        await range.filter({ hasText: /^101–200/ }).waitFor();
      });
      figures.tools.searchMs = await timed(async () => {
        await page.getByLabel("Search for a task").fill("list repository issues");
        await page.getByRole("button", { name: "Search", exact: true }).click();
        await page.getByText(/^Ranked by relevance to/).waitFor();
        await range.filter({ hasText: /^1–/ }).waitFor();
      });

      // Deciding all pending at once, where the page offers it (the bulk bar's "Select all" and "Approve selected").
      await page.goto(`${host.url}/ui/approvals`);
      const selectAll = page.getByRole("checkbox", { name: /^Select all/ });
      if (
        await selectAll.waitFor({ timeout: 10_000 }).then(
          () => true,
          () => false,
        )
      ) {
        const started = performance.now();
        await selectAll.check();
        await page.getByRole("button", { name: /^Approve \d+ selected/ }).click();
        await page
          .getByRole("dialog")
          .getByRole("button", { name: /^Approve \d+ calls?/ })
          .click();
        await page.getByText("Nothing waits for a decision.").waitFor();
        figures.approvals.decideAllMs = Math.round(performance.now() - started);
      }
    } finally {
      await browser.close();
    }
  } finally {
    await host.stop();
  }
  console.log(JSON.stringify(figures, null, 2));
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) await consoleScale();
