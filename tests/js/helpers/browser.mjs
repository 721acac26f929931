// Headless Chromium for the console tests and benchmarks: Debian's /usr/bin/chromium driven by
// playwright-core (which cannot download a browser here), with a fresh profile each time and
// nothing that reaches the network on its own.
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

export function haveChromium() {
  return existsSync(CHROMIUM);
}

// Returns {context, page, close()}; close() closes the browser and removes the profile.
export async function launchBrowser() {
  const profile = mkdtempSync(path.join(os.tmpdir(), "ddb-console-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync",
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
