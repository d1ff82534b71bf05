import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import type { BrowserContext } from "playwright-core";

/** The Debian chromium package; `.ci/run` installs it when absent. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

// The machine's network is closed and the console must need none: nothing that phones home.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  /** Every request the pages made outside `allowedOrigin` (each was refused). */
  foreignRequests: string[];
  close(): Promise<void>;
}

/**
 * Headless Chromium driven by playwright-core, with a fresh profile, a fixed viewport, and every
 * request to another origin than the stack's refused and recorded (the console bundles everything).
 */
export async function launchBrowser(allowedOrigin: string, viewport = { width: 1280, height: 900 }): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), "console-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport });
  const foreignRequests: string[] = [];
  await context.route("**/*", async (route) => {
    const url = route.request().url();
    if (url.startsWith(`${allowedOrigin}/`) || url.startsWith(allowedOrigin.replace(/^http/, "ws"))) return route.continue();
    foreignRequests.push(url);
    return route.abort();
  });
  return {
    context,
    foreignRequests,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
