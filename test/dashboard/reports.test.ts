// The sandbox dashboard in a real browser (headless Chromium), what it shows of each report: one
// timeline per report, settled once delivered; the status the pull APIs list; the webhook's
// verification from the form and the card; no favicon request; the sandbox going away.
import { createClient } from "@reportkit/client";
import type { Sandbox } from "@reportkit/sandbox";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireChromium } from "../support/chromium.js";
import {
  API_TOKEN,
  type DashboardRig,
  HOOK_SECRET,
  HOOK_TOKEN,
  startDashboardRig,
} from "./dashboard-rig.js";

describe.runIf(requireChromium("test/dashboard/reports.test.ts"))("sandbox dashboard", () => {
  let rig: DashboardRig | undefined;
  let sandbox: Sandbox;
  let page: Page;
  let receiverUrl: string;

  beforeAll(async () => {
    rig = await startDashboardRig();
    ({ sandbox, page, receiverUrl } = rig);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(sandbox.dashboardUrl);
    // Bounded; Playwright's error names the locator it waited for.
    await page.locator("#connection", { hasText: /^Live$/ }).waitFor({ timeout: 15_000 });
  });

  afterAll(async () => {
    await rig?.close();
  });

  it("one timeline per report: a delivered report's earlier attempt no longer waits; the 401's reason shows", async () => {
    const flaky = receiverUrl.replace(/\/webhooks$/, "/flaky");
    await page.getByLabel("Name", { exact: true }).fill("flaky");
    await page.getByLabel("URL that receives the reports").fill(flaky);
    await page.getByRole("button", { name: "Create webhook" }).click();
    const hook = page.locator(".webhook", { hasText: "flaky" });
    await expect.poll(() => hook.count(), { timeout: 15_000 }).toBe(1);
    expect(await hook.locator(".bearer").textContent()).toBe(
      "Secret: none (pushes carry no Authorization; give it a secret)",
    );
    expect(await hook.locator(".token").textContent()).toBe(
      "Token: none (no verification is sent; give it a token)",
    );
    await hook.getByRole("button", { name: /^Send SMS/ }).click();
    const group = page.locator("#attempts li.report").first();
    await expect.poll(() => group.getAttribute("data-state"), { timeout: 10_000 }).toBe("retrying");
    const first = group.locator("li.attempt").first();
    expect(await first.locator(".reason").textContent()).toMatch(/^Receiver said: The secret in/);
    expect(await first.locator(".next").count()).toBe(1);
    await first.getByRole("button", { name: /^Retry now/ }).click();
    await expect
      .poll(() => group.getAttribute("data-state"), { timeout: 10_000 })
      .toBe("delivered");
    expect(await group.locator(".state").textContent()).toBe("delivered");
    expect(await group.locator("li.attempt .outcome").allTextContents()).toEqual([
      "failed",
      "delivered",
    ]);
    // Settled: no "next retry at", no "Retry now", no "Retrying now" left on the first attempt.
    expect(await first.locator(".next").count()).toBe(0);
    expect(await first.locator(".retry-now").count()).toBe(0);
    const text = await group.textContent();
    expect(text).not.toMatch(/next retry at|Retrying now|Retry now/);
  });

  it("shows each report's message as the pull API lists it, whatever became of the push", async () => {
    const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
    const quiet = await client.webhooks.create({
      name: "inactive",
      uri: receiverUrl,
      status: 0,
    });
    const sms = sandbox.sendSms({ webhookId: quiet.id, status: "UNDELIV" });
    const call = sandbox.makeCall({ webhookId: quiet.id, status: "BUSY" });
    const status = (id: string) =>
      page.locator(`#attempts li.report[data-report-id="${id}"] .pull-status`);
    // Not pushed (the webhook is inactive), yet listed with its status by the pull APIs.
    await expect
      .poll(() => status(sms.report.id).textContent(), { timeout: 10_000 })
      .toBe("Pull DLR API: UNDELIV");
    await expect
      .poll(() => status(call.report.mid).textContent(), { timeout: 10_000 })
      .toBe(`Call status API: BUSY (ended ${call.report.end_at})`);
    expect(
      await page
        .locator(`#attempts li.report[data-report-id="${sms.report.id}"]`)
        .getAttribute("data-state"),
    ).toBe("skipped");
    const delivered = sandbox.sendSms({ webhookId: quiet.id });
    await expect
      .poll(() => status(delivered.report.id).textContent(), { timeout: 10_000 })
      .toBe(`Pull DLR API: DELIVRD (delivered ${delivered.report.deliv_time})`);
  });

  it("verifies from the form and the card, and says how it went", async () => {
    await page.getByLabel("Name", { exact: true }).fill("challenged");
    await page.getByLabel("URL that receives the reports").fill(receiverUrl);
    await page.locator("#webhook-secret").fill(HOOK_SECRET);
    await page.locator("#webhook-token").fill(HOOK_TOKEN);
    // Unchecked: created without its verification.
    await page.getByLabel(/^Verify it/).uncheck();
    await page.getByRole("button", { name: "Create webhook" }).click();
    const hook = page.locator(".webhook", { hasText: "challenged" });
    await expect.poll(() => hook.count(), { timeout: 15_000 }).toBe(1);
    expect(await hook.locator(".challenge").count()).toBe(0);
    expect(await page.getByLabel(/^Verify it/).isChecked()).toBe(true);

    // The card's button sends it: the receiver answers, with its verificationToken.
    await hook.getByRole("button", { name: /^Verify/ }).click();
    await expect
      .poll(() => hook.locator(".challenge").textContent(), { timeout: 10_000 })
      .toBe("Verification: passed");

    // Edit its token to a wrong one, verified on saving: the receiver's 401, in words.
    await hook.getByRole("button", { name: /^Edit/ }).click();
    await page.locator("#webhook-token").fill("not-the-receivers");
    await page.getByLabel(/^Verify it/).check();
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect
      .poll(() => page.locator("#webhook-result").textContent(), { timeout: 10_000 })
      .toMatch(
        /^challenged: Verification: failed: answered 401 \(the receiver refused the validation key: /,
      );
    await expect
      .poll(() => hook.locator(".challenge").textContent(), { timeout: 10_000 })
      .toMatch(/^Verification: failed: answered 401 /);
    const html = await page.content();
    expect(html).not.toContain("not-the-receivers");
    expect(html).not.toContain(HOOK_SECRET);
  });

  it("asks for no favicon (no 404 in the sandbox's log)", async () => {
    const statuses: string[] = [];
    await page.goto("about:blank");
    page.on("response", (response) => statuses.push(`${response.status()} ${response.url()}`));
    await page.goto(sandbox.dashboardUrl);
    await expect
      .poll(() => page.locator("#connection").textContent(), { timeout: 10_000 })
      .toBe("Live");
    // Chromium asks for an icon once the page has loaded, if the page names none.
    await page.waitForLoadState("load");
    expect(statuses.filter((s) => s.startsWith("404") || s.includes("favicon"))).toEqual([]);
    expect(statuses.length).toBeGreaterThan(5);
    // A browser that asks anyway (a bookmark, a tab strip) gets no 404 either.
    const asked = await page.evaluate(async () => (await fetch("/favicon.ico")).status);
    expect(asked).toBe(204);
  });

  it("says so when the sandbox goes away", async () => {
    await sandbox.close();
    await expect
      .poll(() => page.locator("#connection").textContent(), { timeout: 10_000 })
      .toMatch(/^Disconnected/);
    expect(await page.locator("#connection").getAttribute("data-state")).toBe("error");
  });
});
