// A real headless Chromium for browser tests: the system's Debian `chromium`, driven by
// playwright-core (whose own browser download cannot run here), with a fresh profile each time.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/** The browser binary: CHROMIUM_PATH, else Debian's. */
export const chromiumPath: string = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Whether Chromium can be started here (CI installs it; a dev machine may lack it). */
export const hasChromium: boolean = existsSync(chromiumPath);

/**
 * The one line a browser test file prints when Chromium is missing, instead of running.
 * In CI a missing Chromium is an error: every test must run there.
 */
export function requireChromium(file: string): boolean {
  if (hasChromium) return true;
  if (process.env.CI) throw new Error(`${file}: chromium is not installed (CI installs it).`);
  console.log(
    `${file}: chromium not found at ${chromiumPath} (apt-get install chromium); not run here.`,
  );
  return false;
}

export interface Chromium {
  readonly context: BrowserContext;
  /** Closes the browser and removes its profile directory. */
  close(): Promise<void>;
}

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

/** Starts headless Chromium with a fresh user-data-dir. */
export async function startChromium(): Promise<Chromium> {
  const profile = mkdtempSync(join(tmpdir(), "reportkit-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 800 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
