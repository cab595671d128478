/**
 * The console's weight, keyboard and narrow-window behaviour, and sturdier installs, in a real Chromium against the
 * real host (issue 32, items 6 to 8): the script sent compressed and the form and Markdown libraries fetched only
 * when needed; a tool switched with Space keeps focus; dialogs start at their first field; Ctrl+Enter runs code; a
 * skip link reaches the tools; the keys page fits 375 px; code is keyboard-scrollable with readable line numbers; the
 * dark theme keeps its contrast; Escape does not hide a running install; a search explains a disabled service.
 * Throughout, every request stays on the host and the CSP refuses nothing.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openBrowser, type Session } from "./support/browser.js";
import {
  ADMIN_KEY,
  DEMO_TOKEN,
  startConsoleHost,
  startWeather,
  type TestHost,
  type Upstream,
} from "./support/hosts.js";

let host: TestHost;
let weather: Upstream;
let session: Session;
/** Serves the weather document only when the test says so (`release`), so an install stays running meanwhile. */
let held: { url: string; server: Server; release(): void; requested: Promise<void> };

beforeAll(async () => {
  [host, weather] = await Promise.all([startConsoleHost(), startWeather()]);
  session = await openBrowser();
  held = await holdingServer(`${weather.url}/openapi.json`);
  const installed = await host.api("POST", "/services", {
    id: "weather",
    adapter: "openapi",
    url: `${weather.url}/openapi.json`,
  });
  expect(installed.status, installed.text).toBe(201);
  expect((await host.api("PATCH", "/services/weather/secrets", { bearer: DEMO_TOKEN })).status).toBe(200);
  expect((await host.api("POST", "/services/weather/enabled", { enabled: true })).status).toBe(200);
});

afterEach(async (context) => {
  if (context.task.result?.state !== "fail" || !session) return;
  const path = join(tmpdir(), `cyrnel-console-weight-${context.task.name.replace(/\W+/g, "-")}.png`);
  await session.page.screenshot({ path, fullPage: true }).catch(() => {});
  console.error(`screenshot of the failure: ${path}`);
});

afterAll(async () => {
  held?.release();
  await new Promise<void>((resolve) => (held ? held.server.close(() => resolve()) : resolve()));
  await session?.close();
  await host?.stop();
  await weather?.close();
});

async function holdingServer(source: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let requested!: () => void;
  const wasRequested = new Promise<void>((resolve) => {
    requested = resolve;
  });
  const server = createServer(async (_req, res) => {
    requested();
    await released;
    const text = await (await fetch(source)).text();
    res.writeHead(200, { "content-type": "application/json" }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi.json`,
    server,
    release,
    requested: wasRequested,
  };
}

const ui = (path = "") => `${host.url}/ui/${path}`;
const page = () => session.page;
const nav = (name: string) => page().getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });
const focused = () =>
  page().evaluate(() => {
    const element = document.activeElement;
    return {
      tag: element?.tagName.toLowerCase(),
      label: element?.getAttribute("aria-label") ?? null,
      role: element?.getAttribute("role") ?? null,
      text: element?.textContent?.trim().slice(0, 60) ?? "",
    };
  });

async function signIn() {
  await page().goto(ui());
  await page().getByLabel("Admin key").fill(ADMIN_KEY);
  await page().getByRole("button", { name: "Sign in" }).click();
  await page().getByRole("heading", { name: "Overview", level: 1 }).waitFor();
}

/** Signs in unless this tab already is (each test can then run alone, `-t`). */
async function ensureSignedIn() {
  if (
    await page()
      .evaluate(() => sessionStorage.length > 0)
      .catch(() => false)
  )
    return;
  await signIn();
}

/** WCAG's contrast ratio of two `rgb(…)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (color: string) => {
    const [r, g, bl] = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const channel = (v: number) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * channel(r!) + 0.7152 * channel(g!) + 0.0722 * channel(bl!);
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** Text colour and the nearest opaque background behind it, for each element the selector matches. */
const colours = (selector: string) =>
  page().evaluate((selector) => {
    const background = (element: Element | null): string => {
      for (let at = element; at; at = at.parentElement) {
        const color = getComputedStyle(at).backgroundColor;
        if (color !== "rgba(0, 0, 0, 0)" && color !== "transparent") return color;
      }
      return getComputedStyle(document.documentElement).backgroundColor;
    };
    return Array.from(document.querySelectorAll(selector))
      .filter((element) => element.getClientRects().length > 0)
      .map((element) => ({
        text: element.textContent?.trim().slice(0, 30) ?? "",
        color: getComputedStyle(element).color,
        background: background(element),
      }));
  }, selector);

describe("weight: a compressed script, and the heavy libraries only when needed", () => {
  it("sends the script compressed by Accept-Encoding, with Vary, and a Permissions-Policy on /ui/", async () => {
    const index = await fetch(ui());
    const policy = index.headers.get("permissions-policy") ?? "";
    for (const feature of ["camera", "microphone", "geolocation"]) expect(policy).toContain(`${feature}=()`);
    const script = (await index.text()).match(/src="(\/ui\/assets\/index-[^"]+\.js)"/)![1]!;
    const plain = await fetch(`${host.url}${script}`, { headers: { "accept-encoding": "identity" } });
    const plainBytes = (await plain.arrayBuffer()).byteLength;
    expect(plain.headers.get("content-encoding")).toBeNull();
    for (const encoding of ["br", "gzip"]) {
      const response = await fetch(`${host.url}${script}`, { headers: { "accept-encoding": encoding } });
      expect(response.headers.get("content-encoding")).toBe(encoding);
      expect(response.headers.get("vary")).toBe("accept-encoding");
      // fetch decodes the body: the length on the wire is the header's.
      expect(Number(response.headers.get("content-length"))).toBeLessThan(plainBytes / 3);
      expect((await response.arrayBuffer()).byteLength).toBe(plainBytes);
    }
  });

  it("signs in without the form and Markdown libraries, and fetches each with the page that needs it", async () => {
    const encodings = new Map<string, string | undefined>();
    page().on("response", (response) => {
      if (response.url().includes("/ui/assets/")) encodings.set(response.url(), response.headers()["content-encoding"]);
    });
    const before = session.requests.length;
    await signIn();
    const signInAssets = session.requests.slice(before).filter((url) => url.includes("/ui/assets/"));
    expect(signInAssets.some((url) => /\/index-[^/]+\.js$/.test(url))).toBe(true);
    expect(signInAssets.filter((url) => /schema-form|markdown/.test(url))).toEqual([]);
    const main = [...encodings].find(([url]) => /\/index-[^/]+\.js$/.test(url));
    expect(main?.[1]).toBe("br");

    await page().goto(ui("tools/weather/getForecast"));
    const docs = page().getByRole("article", { name: "Documentation" });
    await docs.locator("h1, h2").first().waitFor();
    expect(session.requests.some((url) => /\/assets\/markdown-[^/]+\.js$/.test(url))).toBe(true);

    await nav("Services").click();
    await page().getByRole("link", { name: "weather", exact: true }).click();
    await page().getByRole("button", { name: "Save configuration" }).waitFor();
    expect(session.requests.some((url) => /\/assets\/schema-form-[^/]+\.js$/.test(url))).toBe(true);
    expect(session.cspViolations).toEqual([]);
  });
});

describe("keyboard", () => {
  it("reaches the first tool switch through a skip link, and Space keeps focus on the switch", async () => {
    await ensureSignedIn();
    await page().goto(ui("services/weather"));
    await page().getByRole("heading", { name: "weather", level: 1 }).waitFor();
    await page()
      .getByRole("row", { name: /getForecast/ })
      .waitFor();
    // From the top of the document, as after a fresh load.
    await page().evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page().keyboard.press("Tab");
    expect((await focused()).text).toBe("Skip to content");
    await page().keyboard.press("Tab");
    expect((await focused()).text).toBe("Skip to tools");
    await page().keyboard.press("Enter");
    let presses = 0;
    while ((await focused()).role !== "switch" && presses < 5) {
      await page().keyboard.press("Tab");
      presses++;
    }
    const start = await focused();
    expect(start.role).toBe("switch");
    expect(start.label).toMatch(/^Tool \w+ enabled$/);
    const toolId = start.label!.split(" ")[1]!;

    await page().keyboard.press("Space");
    const toggled = page().getByRole("switch", { name: start.label! });
    await expect.poll(() => toggled.getAttribute("aria-checked")).toBe("false");
    expect((await host.api("GET", `/tools/weather/${toolId}`)).body.enabled).toBe(false);
    expect(await focused()).toMatchObject({ role: "switch", label: start.label });
    await page().keyboard.press("Space");
    await expect.poll(() => toggled.getAttribute("aria-checked")).toBe("true");
    expect(await focused()).toMatchObject({ role: "switch", label: start.label });
    expect((await host.api("GET", `/tools/weather/${toolId}`)).body.enabled).toBe(true);
  });

  it("starts a dialog at its first field, and runs code with Ctrl+Enter and Cmd+Enter", async () => {
    await ensureSignedIn();
    await nav("Services").click();
    await page().getByRole("button", { name: "Install service" }).click();
    await page().getByRole("dialog", { name: "Install a service" }).waitFor();
    expect(await focused()).toMatchObject({ tag: "select" });
    await page().keyboard.press("Escape");

    for (const chord of ["Control+Enter", "Meta+Enter"]) {
      await nav("Processes").click();
      await page().getByRole("button", { name: "Run code" }).click();
      const dialog = page().getByRole("dialog", { name: "Run code" });
      await dialog.waitFor();
      expect(await focused()).toMatchObject({ tag: "textarea" });
      await page().keyboard.press("ControlOrMeta+a");
      await page().keyboard.type(`cyrnel.output({ chord: "${chord}" });`);
      await page().keyboard.press(chord);
      await page()
        .getByRole("heading", { name: /^Process \d+$/, level: 1 })
        .waitFor();
      const id = Number(new URL(page().url()).pathname.split("/").at(-1));
      const record = (await host.api("GET", `/processes/${id}/code`)).text;
      expect(record).toContain(chord);
    }
  });

  it("gives focus to the page's heading after approving in a dialog whose opener is gone", async () => {
    await ensureSignedIn();
    const policy = await host.api("PUT", "/services/weather/policy", {
      default: "allow",
      rules: [{ tools: "createAlert", action: "ask" }],
    });
    expect(policy.status, policy.text).toBe(200);
    const started = await host.api("POST", "/processes", {
      code: 'await cyrnel.services.weather.tools.createAlert.invoke({ body: { city: "oslo", belowC: 0 } });\ncyrnel.output({ done: true });\n',
      typecheck: false,
    });
    expect(started.status, started.text).toBe(201);
    await page().goto(ui(`processes/${started.body.id}`));
    const waiting = page().getByRole("article", { name: /weather\.createAlert/ });
    const approve = waiting.getByRole("button", { name: "Approve" });
    await approve.focus();
    await page().keyboard.press("Enter");
    const dialog = page().getByRole("dialog", { name: "Approve weather.createAlert" });
    await dialog.waitFor();
    expect(await focused()).toMatchObject({ tag: "textarea" });
    await dialog.getByRole("button", { name: "Approve call" }).focus();
    await page().keyboard.press("Enter");
    await dialog.waitFor({ state: "hidden" });
    await waiting.waitFor({ state: "detached" });
    expect(await focused()).toMatchObject({ tag: "h1" });
    expect((await host.api("PUT", "/services/weather/policy", { default: "allow", rules: [] })).status).toBe(200);

    // The code below is a region a keyboard can scroll, with line numbers above 4.5:1.
    const code = page().locator("pre.code-view");
    await code.waitFor();
    expect([
      await code.getAttribute("tabindex"),
      await code.getAttribute("role"),
      await code.getAttribute("aria-label"),
    ]).toEqual(["0", "region", "Code"]);
    await code.focus();
    expect(await focused()).toMatchObject({ tag: "pre", label: "Code" });
    for (const { color, background } of await colours(".line-number")) {
      expect(contrast(color, background)).toBeGreaterThanOrEqual(4.5);
    }
  });
});

describe("narrow windows and the dark theme", () => {
  it.each([375, 400])("keeps the keys page from scrolling sideways at %i px once a key exists", async (width) => {
    await ensureSignedIn();
    await page().setViewportSize({ width, height: 800 });
    await page().goto(ui("keys"));
    await page().getByRole("heading", { name: "API keys", level: 1 }).waitFor();
    await page()
      .getByRole("form", { name: "Create a key" })
      .getByLabel("Name")
      .fill(`narrow-${width}-with-a-rather-long-name`);
    await page().getByRole("button", { name: "Create key" }).click();
    const shown = page().getByRole("dialog");
    await shown.waitFor();
    const overflow = () => page().evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page().keyboard.press("Escape");
    await shown.waitFor({ state: "hidden" });
    await page()
      .getByRole("row", { name: new RegExp(`narrow-${width}`) })
      .waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page().setViewportSize({ width: 1280, height: 860 });
  });

  it("follows a dark system setting, with text at 4.5:1 or more", async () => {
    await ensureSignedIn();
    await page().emulateMedia({ colorScheme: "dark" });
    try {
      for (const path of ["", "keys", "services/weather", "processes"]) {
        await page().goto(ui(path));
        await page().locator("main h1").waitFor();
        await page().locator("main .card, main table").first().waitFor();
        // The page's first card can come before the rest of it has loaded (a service's tools, say).
        await page().waitForFunction(() => document.querySelector("main .loading") === null);
        const [body] = await colours("main");
        expect(contrast(body!.background, "rgb(0, 0, 0)")).toBeLessThan(2); // a dark page
        for (const selector of ["main h1", "main p", ".muted", "main a", ".button", ".badge", "th", "td", "label"]) {
          for (const { text, color, background } of await colours(selector)) {
            expect(
              contrast(color, background),
              `${path} ${selector} "${text}" ${color} on ${background}`,
            ).toBeGreaterThanOrEqual(4.5);
          }
        }
      }
    } finally {
      await page().emulateMedia({ colorScheme: "light" });
    }
  });
});

describe("installs", () => {
  it("keeps the dialog of a running install open on Escape, says why, and shows how it ended", async () => {
    await ensureSignedIn();
    await page().goto(ui("services"));
    await page().getByRole("button", { name: "Install service" }).click();
    const dialog = page().getByRole("dialog", { name: "Install a service" });
    await dialog.getByLabel("Definition URL").fill(held.url);
    await dialog.getByLabel(/^Service id/).fill("held");
    await dialog.getByRole("button", { name: "Install", exact: true }).click();
    await held.requested;
    await dialog.getByRole("progressbar").waitFor();
    await page().keyboard.press("Escape");
    await dialog.getByText("The install is still running on the host").waitFor();
    expect(await dialog.isVisible()).toBe(true);
    held.release();
    await page().getByRole("heading", { name: "held", level: 1 }).waitFor();
    expect((await host.api("GET", "/services/held")).body.enabled).toBe(false);
  });

  it("explains a search that finds only tools of a disabled service", async () => {
    await ensureSignedIn();
    await page().goto(ui("tools?search=forecast&service=held"));
    const why = page().getByRole("status").filter({ hasText: "No callable tool matches" });
    await why.waitFor();
    // Which services are disabled comes from a read of its own: until it answers, the note gives the general reason.
    await expect.poll(() => why.textContent()).toContain("the service is disabled");
    await why.getByRole("link", { name: "held" }).waitFor();
    await why.getByRole("button", { name: "show them" }).click();
    await page().locator(".tool-list").getByText("held.getForecast").waitFor();
  });

  it("made no request off the host, and the CSP refused nothing", () => {
    expect(session.requests.filter((url) => !url.startsWith(host.url))).toEqual([]);
    expect(session.cspViolations).toEqual([]);
  });
});
