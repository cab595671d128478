/**
 * Screenshots for the console's README, taken by the browser suite. Written only with CYRNEL_UPDATE_SCREENSHOTS=1
 * (times on the pages differ on every run, so writing them always would change the files each time).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";

export const SCREENSHOTS_DIR = join(import.meta.dirname, "..", "..", "docs", "screenshots");
const enabled = process.env.CYRNEL_UPDATE_SCREENSHOTS === "1";

export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (!enabled) return;
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  // Playwright stops animations and hides the caret for the shot itself (no style tag: the CSP would refuse one).
  await page.screenshot({
    path: join(SCREENSHOTS_DIR, `${name}.png`),
    fullPage: options.fullPage ?? true,
    animations: "disabled",
    caret: "hide",
  });
}
