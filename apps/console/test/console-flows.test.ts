/**
 * The console end to end: the real host (`cyrnel start`) serving the real build at /ui/, driven in Debian's Chromium,
 * with the demo weather API as the upstream. Each flow asserts what the operator sees and what the host then holds
 * (over its API). Throughout, every request the browser makes must stay on the host, and the CSP must refuse nothing.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openBrowser, type Session } from "./support/browser.js";
import {
  ADMIN_KEY,
  DEMO_TOKEN,
  startConsoleHost,
  startRegistry,
  startWeather,
  type TestHost,
  type Upstream,
} from "./support/hosts.js";
import { screenshot } from "./support/screenshots.js";

/** gRPC's route_guide example and the MCP reference server, as the bundled adapters' own tests use them. */
const PACKAGES = join(import.meta.dirname, "..", "..", "..", "packages");
const ROUTE_GUIDE_PROTO = join(PACKAGES, "grpc", "test", "fixtures", "route_guide.proto");
const EVERYTHING_SCRIPT = join(
  dirname(
    createRequire(join(PACKAGES, "mcp", "package.json")).resolve(
      "@modelcontextprotocol/server-everything/package.json",
    ),
  ),
  "dist",
  "index.js",
);

let host: TestHost;
let weather: Upstream;
let registry: Upstream;
let session: Session;

beforeAll(async () => {
  [host, weather, registry] = await Promise.all([startConsoleHost(), startWeather(), startRegistry()]);
  session = await openBrowser();
});

// A failing step leaves a picture of what the browser showed, for whoever reads the failure.
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
  await registry?.close();
});

const ui = (path = "") => `${host.url}/ui/${path}`;
const page = () => session.page;
/** A link of the main navigation (pages have links with the same names, e.g. the overview's counts). */
const nav = (name: string) => page().getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });
/** What the host holds, asked with the admin key. */
const hostApi = (method: string, path: string, body?: unknown) => host.api(method, path, body);

async function signIn(key = ADMIN_KEY) {
  await page().goto(ui());
  await page().getByLabel("Admin key").fill(key);
  await page().getByRole("button", { name: "Sign in" }).click();
}

/** The process code of the approvals flow: a read, then two writes under `ask`, the second one refused. */
const ALERTS_PROGRAM = `console.log("checking cities");
const cities = await cyrnel.services.weather.tools.listCities.invoke({});
console.log(\`cities: \${cities.length}\`);
const first = await cyrnel.services.weather.tools.createAlert.invoke({ body: { city: "oslo", belowC: 0 } });
console.log(\`first alert: \${first.id}\`);
try {
  await cyrnel.services.weather.tools.createAlert.invoke({ body: { city: "lisbon", belowC: 5 } });
  console.log("second alert created");
} catch (error) {
  console.log(\`second alert refused: \${(error as Error).message}\`);
}
cyrnel.output({ alert: first.id, cities: cities.length });
`;

describe("the console, end to end", () => {
  it("serves /ui/ under the strict CSP, without a key", async () => {
    const response = await fetch(ui());
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(response.headers.get("content-security-policy")).not.toContain("unsafe");
    const redirect = await fetch(`${host.url}/ui`, { redirect: "manual" });
    expect([redirect.status, redirect.headers.get("location")]).toEqual([308, "/ui/"]);
  });

  it("refuses a wrong key with a clear message, and an agent key as not an admin key", async () => {
    await signIn("not-the-key");
    const alert = page().getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("The host does not accept this key");
    expect(await alert.textContent()).toContain("unauthorized");
    await screenshot(page(), "sign-in-refused", { fullPage: false });

    const agent = await hostApi("POST", "/keys", { name: "sign-in agent", role: "agent" });
    expect(agent.status).toBe(201);
    await signIn(agent.body.key);
    await page().getByText("This is an agent key").waitFor();
    expect(await hostApi("DELETE", `/keys/${agent.body.id}`)).toMatchObject({ status: 204 });
    // The key never goes into a URL.
    expect(session.requests.filter((url) => url.includes(agent.body.key) || url.includes("not-the-key"))).toEqual([]);
  });

  it("signs in with the admin key and shows the overview", async () => {
    await signIn();
    await page().getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await page()
      .getByText(/host version/)
      .waitFor();
    expect(await page().evaluate(() => sessionStorage.getItem("cyrnel.apiKey"))).toBe(ADMIN_KEY);
    expect(await page().evaluate(() => document.cookie)).toBe("");
  });

  it("shows a failing install's code and message, and installs nothing", async () => {
    await nav("Services").click();
    await page().getByRole("button", { name: "Install service" }).click();
    const dialog = page().getByRole("dialog", { name: "Install a service" });
    await dialog.getByLabel("Definition URL").fill(`${weather.url}/no-such-document.json`);
    await dialog.getByLabel("Service id").fill("broken");
    await dialog.getByRole("button", { name: "Install", exact: true }).click();
    const error = dialog.getByRole("alert");
    await error.waitFor();
    const text = (await error.textContent()) ?? "";
    expect(text).toContain("The service was not installed");
    expect(text).toContain("bad_request");
    expect(text).toContain("404");
    await screenshot(page(), "install-failed", { fullPage: false });
    expect((await hostApi("GET", "/services/broken")).status).toBe(404);
    await dialog.getByRole("button", { name: "Cancel" }).click();
  });

  it("installs a service from a URL, configures it, sets a secret and enables it", async () => {
    await page().getByRole("button", { name: "Install service" }).click();
    const dialog = page().getByRole("dialog", { name: "Install a service" });
    await dialog.getByLabel("Definition URL").fill(`${weather.url}/openapi.json`);
    await dialog.getByLabel("Service id").fill("weather");
    await dialog.getByRole("button", { name: "Install", exact: true }).click();
    await page().getByRole("heading", { name: "weather", level: 1 }).waitFor();
    await page().getByText("Installed. Set its configuration and secrets, then enable it.").waitFor();
    await page().getByRole("link", { name: "createAlert" }).waitFor();
    expect((await hostApi("GET", "/services/weather")).body).toMatchObject({
      id: "weather",
      enabled: false,
      toolCount: 3,
    });

    // The config form is generated from the adapter's schema: its fields carry the schema's names and defaults.
    const timeout = page().getByLabel("timeoutMs");
    await timeout.fill("15000");
    await page().getByRole("button", { name: "Save configuration" }).click();
    await page().getByText("Configuration saved.").waitFor();
    expect((await hostApi("GET", "/services/weather/config")).body.config).toMatchObject({
      timeoutMs: 15000,
      baseUrl: weather.url,
    });

    const secret = page().getByLabel("bearer");
    expect(await secret.getAttribute("type")).toBe("password");
    await secret.fill(DEMO_TOKEN);
    await page().getByRole("button", { name: "Save secrets" }).click();
    await page().getByText("Saved: bearer.").waitFor();
    expect((await hostApi("GET", "/services/weather/secrets")).body).toEqual({ set: ["bearer"] });
    // Write-only: the value is gone from the form and from the page.
    expect(await page().getByLabel("bearer").inputValue()).toBe("");
    expect(await page().content()).not.toContain(DEMO_TOKEN);

    // Secret headers and query parameters: set by name, listed by name only, refused with the host's reason, removed.
    const extra = page().getByRole("region", { name: "Secret headers and query parameters" });
    await extra.getByText("None set.").waitFor();
    await extra.getByLabel("Header or parameter name").fill("X-Demo-Trace");
    await extra.getByLabel("Secret value").fill("trace-secret-4711");
    await extra.getByRole("button", { name: "Set", exact: true }).click();
    await extra.getByText("Set header X-Demo-Trace.").waitFor();
    await extra.getByRole("cell", { name: "X-Demo-Trace", exact: true }).waitFor();
    expect((await hostApi("GET", "/services/weather/secrets")).body).toEqual({
      set: ["bearer", "header:X-Demo-Trace"],
    });
    expect(await extra.getByLabel("Secret value").inputValue()).toBe("");
    expect(await page().content()).not.toContain("trace-secret-4711");
    // The adapter's own secrets list only its own names.
    expect(await page().getByRole("region", { name: "Secrets", exact: true }).textContent()).not.toContain("header:");

    await extra.getByLabel("Sent as").selectOption({ label: "Header" });
    await extra.getByLabel("Header or parameter name").fill("Content-Length");
    await extra.getByLabel("Secret value").fill("0");
    await extra.getByRole("button", { name: "Set", exact: true }).click();
    const refused = extra.getByRole("alert");
    await refused.waitFor();
    expect(await refused.textContent()).toContain("validation_failed");
    expect(await refused.textContent()).toContain(`"Content-Length" frames the message or the connection`);
    await extra.getByLabel("Header or parameter name").fill("");

    await extra.getByRole("button", { name: "Remove header X-Demo-Trace" }).click();
    await extra.getByText("Removed header X-Demo-Trace.").waitFor();
    await extra.getByText("None set.").waitFor();
    expect((await hostApi("GET", "/services/weather/secrets")).body).toEqual({ set: ["bearer"] });

    await page().getByRole("switch", { name: "Service enabled" }).click();
    await page().getByRole("switch", { name: "Service enabled", checked: true }).waitFor();
    expect((await hostApi("GET", "/services/weather")).body.enabled).toBe(true);
  });

  it("switches one tool off and on", async () => {
    const toolSwitch = page().getByRole("switch", { name: "Tool listCities enabled" });
    await toolSwitch.click();
    await page().getByRole("switch", { name: "Tool listCities enabled", checked: false }).waitFor();
    expect((await hostApi("GET", "/tools/weather/listCities")).body.enabled).toBe(false);
    await toolSwitch.click();
    await page().getByRole("switch", { name: "Tool listCities enabled", checked: true }).waitFor();
    expect((await hostApi("GET", "/tools/weather/listCities")).body.enabled).toBe(true);
  });

  it("edits the policy: createAlert asks for approval", async () => {
    await page().getByRole("button", { name: "Add rule" }).click();
    const rule = page().getByRole("group", { name: "Rule 1" });
    await rule.getByLabel("Tools (glob)").fill("createAlert");
    await rule.getByLabel("Action").selectOption("ask");
    await page().getByRole("button", { name: "Save policy" }).click();
    await page().getByText("Policy saved.").waitFor();
    expect((await hostApi("GET", "/services/weather/policy")).body).toEqual({
      default: "allow",
      rules: [{ tools: "createAlert", action: "ask" }],
      approvalTimeoutMs: null,
    });
    // The tool list follows: createAlert now shows `ask`.
    const row = page().getByRole("row", { name: /createAlert/ });
    await row.getByText("ask", { exact: true }).waitFor();
    await screenshot(page(), "service");
  });

  it("finds a tool by ranked search and renders its docs", async () => {
    await nav("Tools").click();
    await page().getByLabel("Search for a task").fill("forecast for a city");
    await page().getByRole("button", { name: "Search" }).click();
    const first = page().locator(".tool-list > li").first();
    await first.getByText("weather.getForecast").waitFor();
    await screenshot(page(), "tools");
    await first.getByRole("link").click();
    const docs = page().getByRole("article", { name: "Documentation" });
    await docs.locator("h1, h2").first().waitFor();
    expect(await docs.textContent()).toContain("getForecast");
    // Rendered Markdown, not its source.
    expect(await docs.textContent()).not.toContain("## ");
    await screenshot(page(), "tool-docs");
  });

  it("runs code and shows its output and calls live, approves one call and denies another", async () => {
    await nav("Processes").click();
    await page().getByRole("button", { name: "Run code" }).click();
    const dialog = page().getByRole("dialog", { name: "Run code" });
    await dialog.getByLabel("TypeScript").fill(ALERTS_PROGRAM);
    await dialog.getByLabel(/^Ref/).fill("alerts");
    await dialog.getByRole("button", { name: "Run", exact: true }).click();
    await page()
      .getByRole("heading", { name: /^Process \d+$/, level: 1 })
      .waitFor();
    const id = Number(new URL(page().url()).pathname.split("/").at(-1));

    // The process is suspended on the first createAlert: what it wrote and called so far is on screen while it
    // has not ended, so it arrived over the live stream.
    const waiting = page().getByRole("article", { name: /weather\.createAlert/ });
    await waiting.waitFor();
    await page().getByTestId("stdout").getByText("cities: 4").waitFor();
    await page().getByRole("list", { name: "Tool calls over time" }).getByText("weather.listCities").waitFor();
    const suspended = (await hostApi("GET", `/processes/${id}`)).body;
    expect(suspended).toMatchObject({ state: "suspended" });
    expect(suspended.pendingApprovalIds).toHaveLength(1);
    expect(await waiting.textContent()).toContain("oslo");
    await screenshot(page(), "process-waiting");

    await waiting.getByRole("button", { name: "Approve" }).click();
    const approveDialog = page().getByRole("dialog", { name: "Approve weather.createAlert" });
    await approveDialog.getByLabel(/^Reason/).fill("looks fine");
    await approveDialog.getByRole("button", { name: "Approve call" }).click();
    await page().getByTestId("stdout").getByText("first alert: alert-1").waitFor();

    // The second call waits in the inbox.
    await nav("Approvals").click();
    const pending = page()
      .getByRole("article", { name: /weather\.createAlert/ })
      .filter({ hasText: "lisbon" });
    await pending.getByRole("button", { name: "Deny" }).waitFor();
    await screenshot(page(), "approvals");
    await pending.getByRole("button", { name: "Deny" }).click();
    const denyDialog = page().getByRole("dialog", { name: "Deny weather.createAlert" });
    await denyDialog.getByLabel(/^Reason/).fill("no alerts for lisbon");
    await denyDialog.getByRole("button", { name: "Deny call" }).click();
    await page().getByText("Nothing waits for a decision.").waitFor();

    const approvals = (await hostApi("GET", `/approvals?processId=${id}`)).body.items;
    expect(approvals.map((a: any) => [a.state, a.reason, a.parameters.body.city]).sort()).toEqual([
      ["approved", "looks fine", "oslo"],
      ["denied", "no alerts for lisbon", "lisbon"],
    ]);

    await page().goto(ui(`processes/${id}`));
    await page()
      .getByTestId("stdout")
      .getByText(/second alert refused: .*no alerts for lisbon/)
      .waitFor();
    await page().getByTestId("output").getByText('"alert": "alert-1"').waitFor();
    const ended = (await hostApi("GET", `/processes/${id}`)).body;
    expect(ended).toMatchObject({ state: "idle", exitState: "success" });
    const calls = (await hostApi("GET", `/processes/${id}/calls`)).body.items;
    expect(calls.map((c: any) => `${c.toolId}:${c.outcome}`).sort()).toEqual([
      "createAlert:approval_denied",
      "createAlert:ok",
      "listCities:ok",
    ]);
    // The timeline is read from the stored records: after a reload each call is there, in order, with the wait
    // for its approval, who decided and why.
    const timeline = page().getByRole("list", { name: "Tool calls over time" });
    await timeline.getByText("approval_denied").waitFor();
    const rows = timeline.getByTestId("timeline-call");
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(0).textContent()).toContain("weather.listCities");
    const approved = await rows.nth(1).textContent();
    expect(approved).toMatch(/weather\.createAlert.*ok/);
    expect(approved).toMatch(/waited \d+ ms for approval/);
    expect(approved).toContain("“looks fine”");
    expect(await rows.nth(2).textContent()).toContain("“no alerts for lisbon”");
    await screenshot(page(), "process");

    // The call log, filtered by outcome: this process's denied call, and nothing that did not end so.
    await nav("Calls").click();
    const filter = page().getByLabel(/^Outcome/);
    await filter.fill("approval_denied");
    await filter.press("Enter");
    const log = page().getByRole("table", { name: "Tool calls" });
    await page().waitForFunction(() => {
      const rows = Array.from(document.querySelectorAll('table[aria-label="Tool calls"] tbody tr'));
      return rows.length > 0 && rows.every((row) => row.textContent?.includes("approval_denied"));
    });
    expect(await log.getByRole("link", { name: `#${id}` }).count()).toBe(1);
    await screenshot(page(), "calls");
  });

  it("kills a running process and runs it again", async () => {
    const created = await hostApi("POST", "/processes", {
      code: 'console.log("waiting"); await new Promise(() => {});',
      ref: "forever",
      timeoutMs: 600000,
      typecheck: false,
    });
    expect(created.status).toBe(201);
    await page().goto(ui(`processes/${created.body.id}`));
    await page().getByTestId("stdout").getByText("waiting").waitFor();
    await page().getByRole("button", { name: "Kill" }).click();
    await page().getByRole("button", { name: "Run again" }).waitFor();
    expect((await hostApi("GET", `/processes/${created.body.id}`)).body).toMatchObject({
      state: "idle",
      exitState: "canceled",
    });
    // Running again repeats the program's side effects: it asks first.
    await page().getByRole("button", { name: "Run again" }).click();
    const confirm = page().getByRole("dialog", { name: `Run process ${created.body.id} again?` });
    expect(await confirm.textContent()).toContain("every tool call it makes is made again");
    await confirm.getByRole("button", { name: "Run again" }).click();
    await page().getByRole("button", { name: "Kill" }).waitFor();
    // stdout still shows the first run's "waiting" until the new run's stream opens (live): its own "waiting" after.
    await page().getByRole("status").getByText("live", { exact: true }).waitFor();
    await page().getByTestId("stdout").getByText("waiting").waitFor();
    await page().getByRole("button", { name: "Kill" }).click();
    await page().getByRole("button", { name: "Run again" }).waitFor();
    // The code viewer shows what was submitted, line by line.
    await page().locator(".code-view").getByText("await new Promise").waitFor();
  });

  it("creates an agent key, shows it once, and revokes it", async () => {
    await nav("API keys").click();
    await page().getByLabel("Name").fill("e2e-agent");
    await page()
      .getByLabel(/^Services/)
      .fill("weather");
    await page().getByRole("button", { name: "Create key" }).click();
    const shown = page().getByTestId("created-key");
    await shown.waitFor();
    const key = await shown.inputValue();
    expect(key).toMatch(/^cyk_[A-Za-z0-9_-]{43}$/);
    // The key works, as an agent key limited to weather.
    const asAgent = await host.api("GET", "/services", undefined, { authorization: `Bearer ${key}` });
    expect([asAgent.status, asAgent.body.items.map((s: any) => s.id)]).toEqual([200, ["weather"]]);
    await page().getByRole("button", { name: "Done" }).click();
    // The list showed the new row while the key was still on screen: wait for the key to go, not for the row.
    await shown.waitFor({ state: "detached" });
    const row = page().getByRole("row", { name: /e2e-agent/ });
    await row.waitFor();
    // Shown once: not in the list, not anywhere on the page any more.
    expect(await page().content()).not.toContain(key);
    await screenshot(page(), "keys");

    await row.getByRole("button", { name: "Revoke e2e-agent" }).click();
    await page().getByRole("dialog", { name: "Revoke e2e-agent?" }).getByRole("button", { name: "Revoke key" }).click();
    // It stays listed, marked revoked (by the console's key, CYRNEL_API_KEY), with nothing left to revoke.
    await row.getByTestId("key-revoked").getByText("revoked", { exact: true }).waitFor();
    expect(await row.getByTestId("key-revoked").textContent()).toContain("by bootstrap");
    expect(await row.getByRole("button", { name: "Revoke e2e-agent" }).count()).toBe(0);
    expect((await host.api("GET", "/services", undefined, { authorization: `Bearer ${key}` })).status).toBe(401);
    const listed = (await hostApi("GET", "/keys")).body.items.find((k: any) => k.name === "e2e-agent");
    expect(listed).toMatchObject({ revokedAt: expect.any(String), revokedBy: "bootstrap" });
  });

  it("traps focus in a dialog and gives it back on Escape, from the keyboard alone", async () => {
    await nav("Services").click();
    const opener = page().getByRole("button", { name: "Install service" });
    await opener.focus();
    await page().keyboard.press("Enter");
    const dialog = page().getByRole("dialog", { name: "Install a service" });
    await dialog.waitFor();
    for (let i = 0; i < 15; i++) {
      await page().keyboard.press("Tab");
      expect(await page().evaluate(() => document.activeElement?.closest("dialog") !== null)).toBe(true);
    }
    await page().keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(await page().evaluate(() => document.activeElement?.textContent)).toBe("Install service");
  });

  it("adds a registry, installs a service and a module from it, and updates both", async () => {
    await nav("Registries").click();
    await page().getByLabel("Base URL").fill(`${registry.url}/`);
    await page().getByRole("button", { name: "Add registry" }).click();
    const catalogue = page().getByRole("region", { name: "Registry cyrnel examples" });
    const petstore = catalogue.getByRole("listitem").filter({ hasText: "Petstore" });
    await petstore.waitFor();
    await screenshot(page(), "registries");
    await petstore.getByLabel("Version of Petstore").fill("1.0.0");
    await petstore.getByRole("button", { name: "Install Petstore" }).click();
    await page().getByRole("heading", { name: "petstore", level: 1 }).waitFor();
    expect((await hostApi("GET", "/services/petstore")).body).toMatchObject({ version: "1.0.0", enabled: false });
    await page().getByRole("button", { name: "Update", exact: true }).click();
    await page().getByText("Updated from 1.0.0 to 1.1.0.").waitFor();
    expect((await hostApi("GET", "/services/petstore")).body.version).toBe("1.1.0");

    await nav("Registries").click();
    await catalogue.getByText("Modules", { exact: true }).click();
    const module = catalogue.getByRole("listitem").filter({ hasText: "JSON over HTTP" });
    await module.getByRole("button", { name: /^Install / }).waitFor();
    await module.getByRole("textbox").fill("1.0.0");
    await module.getByRole("button", { name: /^Install / }).click();
    await page().getByRole("heading", { name: "Modules", level: 1 }).waitFor();
    const installed = page().getByRole("listitem").filter({ hasText: "json-http" }).first();
    await installed.getByText("v1.0.0").waitFor();
    expect((await hostApi("GET", "/modules/json-http")).body).toMatchObject({ version: "1.0.0", builtin: false });
    await installed.getByRole("button", { name: "Settings" }).click();
    await installed.getByRole("button", { name: "Update from registry" }).click();
    await installed.getByText("Updated to 2.0.0.").waitFor();
    expect((await hostApi("GET", "/modules/json-http")).body.version).toBe("2.0.0");
    await screenshot(page(), "modules");
  });

  it("installs a service from an uploaded file, and deletes it", async () => {
    const document = await (await fetch(`${weather.url}/openapi.json`)).text();
    await nav("Services").click();
    await page().getByRole("button", { name: "Install service" }).click();
    const dialog = page().getByRole("dialog", { name: "Install a service" });
    await dialog.getByText("Upload a file").click();
    await dialog.getByLabel("Definition file").setInputFiles({
      name: "weather.json",
      mimeType: "application/json",
      buffer: Buffer.from(document),
    });
    await dialog.getByLabel("Service id").fill("uploaded");
    await dialog.getByRole("button", { name: "Install", exact: true }).click();
    await page().getByRole("heading", { name: "uploaded", level: 1 }).waitFor();
    expect((await hostApi("GET", "/services/uploaded")).body).toMatchObject({ name: "Demo Weather", toolCount: 3 });

    await page().getByRole("button", { name: "Delete service" }).click();
    await page().getByRole("dialog", { name: "Delete uploaded?" }).getByRole("button", { name: "Delete" }).click();
    await page().getByRole("heading", { name: "Services", level: 1 }).waitFor();
    expect((await hostApi("GET", "/services/uploaded")).status).toBe(404);
  });

  it("installs a gRPC service from uploaded .proto files, and an MCP server by its command", async () => {
    await nav("Services").click();
    await page().getByRole("button", { name: "Install service" }).click();
    let dialog = page().getByRole("dialog", { name: "Install a service" });
    await dialog.getByLabel("Adapter").selectOption("grpc");
    // The sources follow the adapter.
    await dialog.getByText("Upload .proto files").waitFor();
    expect(await dialog.getByText("From a registry").count()).toBe(0);
    await dialog
      .getByLabel(/^Proto files/)
      .setInputFiles([{ name: "route_guide.proto", mimeType: "text/plain", buffer: readFileSync(ROUTE_GUIDE_PROTO) }]);
    await dialog.getByLabel(/Target/).fill("127.0.0.1:50051");
    await dialog.getByLabel("Service id").fill("routes");
    await dialog.getByRole("button", { name: "Install", exact: true }).click();
    await page().getByRole("heading", { name: "routes", level: 1 }).waitFor();
    const routes = (await hostApi("GET", "/services/routes")).body;
    expect(routes).toMatchObject({ adapter: "grpc", toolCount: 2 });

    await nav("Services").click();
    await page().getByRole("button", { name: "Install service" }).click();
    dialog = page().getByRole("dialog", { name: "Install a service" });
    await dialog.getByLabel("Adapter").selectOption("mcp");
    await dialog.getByText("A command (stdio)").click();
    await dialog.getByLabel(/^Command/).fill(process.execPath);
    await dialog.getByLabel(/Arguments/).fill(`${EVERYTHING_SCRIPT}\nstdio`);
    await dialog.getByLabel("Service id").fill("everything");
    await dialog.getByRole("button", { name: "Install", exact: true }).click();
    await page().getByRole("heading", { name: "everything", level: 1 }).waitFor();
    const everything = (await hostApi("GET", "/services/everything")).body;
    expect(everything.adapter).toBe("mcp");
    expect(everything.toolCount).toBeGreaterThan(5);
    expect((await hostApi("GET", "/tools?serviceId=everything&query=echo")).body.items[0]).toMatchObject({
      id: "echo",
    });

    for (const id of ["routes", "everything"]) expect((await hostApi("DELETE", `/services/${id}`)).status).toBe(204);
  });

  it("shows the overview with counts and the recent failure", async () => {
    const failed = await hostApi("POST", "/processes", {
      code: 'throw new Error("boom")',
      block: true,
      typecheck: false,
    });
    expect(failed.body.exitState).toBe("failed");
    await nav("Overview").click();
    const services = page()
      .getByRole("list", { name: "Counts" })
      .getByRole("link", { name: /Services/ });
    expect(await services.textContent()).toContain("1 enabled");
    // Exact figures, from the host's summary: the same numbers GET /stats answers.
    const stats = (await hostApi("GET", "/stats")).body;
    const counts = page().getByRole("list", { name: "Counts" });
    const figure = (name: RegExp) => counts.getByRole("link", { name }).textContent();
    const tools = await figure(/Tools/);
    expect(tools).toContain(`${stats.tools.callable} callable`);
    expect(tools).toMatch(new RegExp(`^${stats.tools.total}Tools`));
    expect(stats.processes.ended.failed).toBeGreaterThan(0);
    expect(await figure(/Ended in 24 h/)).toContain(`${stats.processes.ended.failed} failed`);
    await page()
      .getByRole("link", { name: `Process ${failed.body.id}` })
      .waitFor();
    await screenshot(page(), "overview");
  });

  it("fits a 400 px wide window: no sideways scrolling, the menu behind a button", async () => {
    await page().setViewportSize({ width: 400, height: 820 });
    for (const path of ["", "services/weather", "processes", "approvals", "keys"]) {
      await page().goto(ui(path));
      await page().locator("main h1").waitFor();
      // The heading comes before the page's lists have loaded: measure the loaded page.
      await page().waitForFunction(() => document.querySelector("main .loading") === null);
      const overflow = await page().evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect([path, overflow]).toEqual([path, 0]);
    }
    const nav = page().getByRole("navigation", { name: "Main" });
    expect(await nav.isVisible()).toBe(false);
    await page().getByRole("button", { name: "Menu" }).click();
    await nav.getByRole("link", { name: "Services" }).click();
    await page().getByRole("heading", { name: "Services", level: 1 }).waitFor();
    await page().goto(ui("services/weather"));
    await page().getByRole("heading", { name: "weather", level: 1 }).waitFor();
    await screenshot(page(), "narrow-service", { fullPage: false });
    await page().setViewportSize({ width: 1280, height: 860 });
  });

  it("made no request beyond the host, and the CSP refused nothing", () => {
    const foreign = session.requests.filter((url) => !url.startsWith(`${host.url}/`) && !url.startsWith("data:"));
    expect(foreign).toEqual([]);
    expect(session.cspViolations).toEqual([]);
  });
});
