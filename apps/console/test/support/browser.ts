/**
 * A real Chromium (the system's, else @sparticuz/chromium from npm: @cyrnel/test-servers finds it; a test tool's own
 * browser download is not possible here) driven by playwright-core's library. Every page records
 * the requests it makes and the CSP violations it hits, so a suite can assert that nothing left the loopback host
 * and that the CSP never had to refuse anything.
 */
import { findChromium } from "@cyrnel/test-servers";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

/** Flags that make headless Chromium work on this machine kind and keep it from calling home. */
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--font-render-hinting=none",
];

export interface Session {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Every URL a page of this context requested. */
  requests: string[];
  /** CSP violations: securitypolicyviolation events and Chromium's "Refused to …" console lines. */
  cspViolations: string[];
  /** Console errors other than CSP lines (a failed request the test caused on purpose shows up here too). */
  consoleErrors: string[];
  close(): Promise<void>;
}

/** `extraArgs`: more Chromium flags (a test that maps a host name with `--host-resolver-rules`, say). */
export async function openBrowser(viewport = { width: 1280, height: 860 }, extraArgs: string[] = []): Promise<Session> {
  const found = await findChromium();
  if ("missing" in found) throw new Error(found.missing);
  // launch() gives Chromium a new, empty --user-data-dir of its own (and removes it on close).
  const browser = await chromium.launch({
    executablePath: found.executablePath,
    args: [...FLAGS, ...extraArgs],
    env: { ...process.env, ...found.env } as Record<string, string>,
  });
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, locale: "en-US", timezoneId: "UTC" });
  const requests: string[] = [];
  const cspViolations: string[] = [];
  const consoleErrors: string[] = [];
  context.on("request", (request) => requests.push(request.url()));
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
  const watch = (page: Page) =>
    page.on("console", (message) => {
      if (message.type() !== "error") return;
      const text = message.text();
      if (/CSP violation|Content Security Policy|Refused to/.test(text)) cspViolations.push(text);
      else consoleErrors.push(text);
    });
  context.on("page", watch);
  const page = await context.newPage();
  // The default wait for an element: generous, because the host, the sandbox and Chromium share two cores.
  page.setDefaultTimeout(30_000);
  return {
    browser,
    context,
    page,
    requests,
    cspViolations,
    consoleErrors,
    async close() {
      await browser.close();
    },
  };
}
