// What the dashboard's empty lists say before it knows: "Connecting…" while the event stream has
// not brought the sandbox's state yet (not "No webhook yet", which may be false), and "Add the
// key" with how, when the page was opened without its key. Headless Chromium, a real sandbox.
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Chromium, requireChromium, startChromium } from "../support/chromium.js";

const EVENTS = /\/api\/sandbox\/events\b/;

describe.runIf(requireChromium("test/dashboard/placeholders.test.ts"))(
  "sandbox dashboard, before it knows the sandbox's state",
  () => {
    let sandbox: Sandbox;
    let browser: Chromium;

    beforeAll(async () => {
      sandbox = await createSandbox({ token: "placeholders-api-token-0042" });
      browser = await startChromium();
    });

    afterAll(async () => {
      await browser?.close();
      await sandbox?.close();
    });

    const text = (page: Page, id: string) => page.locator(`#${id}`).textContent();
    const visible = (page: Page, id: string) => page.locator(`#${id}`).isVisible();

    it("says Connecting… until the event stream brings the webhooks, then No webhook yet", async () => {
      const page = await browser.context.newPage();
      // The event stream is held until the page has been looked at.
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let streamAsked = false;
      await page.route(EVENTS, async (route) => {
        streamAsked = true;
        await released;
        await route.continue();
      });
      await page.goto(sandbox.dashboardUrl);
      await expect.poll(() => streamAsked, { timeout: 15_000 }).toBe(true);
      expect(await text(page, "connection")).toBe("Connecting…");
      expect(await text(page, "no-webhooks")).toBe("Connecting…");
      expect(await visible(page, "no-webhooks")).toBe(true);
      expect(await visible(page, "no-attempts")).toBe(false);

      release();
      await expect.poll(() => text(page, "connection"), { timeout: 15_000 }).toBe("Live");
      expect(await text(page, "no-webhooks")).toBe("No webhook yet: create one below.");
      expect(await visible(page, "no-attempts")).toBe(true);
      expect(await text(page, "no-attempts")).toMatch(/^Nothing pushed yet\./);
      await page.close();
    });

    it("opened without its key: Add the key, and how", async () => {
      const page = await browser.context.newPage();
      await page.goto(sandbox.dashboardUrl.replace(/#.*$/, ""));
      await expect
        .poll(() => page.locator("#connection").getAttribute("data-state"), { timeout: 15_000 })
        .toBe("error");
      expect(await text(page, "no-webhooks")).toBe(
        "Add the key: open the dashboard URL the sandbox printed when it started (it ends in #key=…).",
      );
      expect(await visible(page, "no-attempts")).toBe(false);
      await page.close();
    });
  },
);
