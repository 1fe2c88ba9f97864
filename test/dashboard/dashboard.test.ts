// The sandbox dashboard in a real browser (headless Chromium): create a webhook pointing at a
// live Express receiver, send an SMS from the page, watch the attempt turn "delivered", inspect
// the request and the reply, retry, resend, edit, delete; by keyboard; at 1280×800 and 400 px.
// (What it shows of each report, and the sandbox going away: reports.test.ts.)
import type { DeliveryReport } from "@reportkit/core";
import type { Sandbox } from "@reportkit/sandbox";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireChromium } from "../support/chromium.js";
import {
  API_TOKEN,
  ARTIFACTS,
  type DashboardRig,
  HOOK_SECRET,
  HOOK_TOKEN,
  startDashboardRig,
} from "./dashboard-rig.js";

describe.runIf(requireChromium("test/dashboard/dashboard.test.ts"))("sandbox dashboard", () => {
  let rig: DashboardRig | undefined;
  let sandbox: Sandbox;
  let page: Page;
  let receiverUrl: string;
  let received: DeliveryReport[];

  beforeAll(async () => {
    rig = await startDashboardRig();
    ({ sandbox, page, receiverUrl, received } = rig);
  });

  afterAll(async () => {
    await rig?.close();
  });

  it("creates a webhook, sends an SMS and shows the attempt delivered, live, by keyboard", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(sandbox.dashboardUrl);
    await expect
      .poll(() => page.locator("#connection").textContent(), { timeout: 15_000 })
      .toBe("Live");
    // The key leaves the address bar once read.
    expect(page.url()).not.toContain("#key=");
    expect(await page.locator("#base-url").textContent()).toBe(sandbox.baseUrl);

    // Every control has a label; every action is a <button>.
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll("input, select, textarea")]
        .filter((e) => (e as HTMLInputElement).labels?.length === 0)
        .map((e) => e.id),
    );
    expect(unlabelled).toEqual([]);

    // The first Tab reaches a skip link to the log; the next ones the webhook form, in order.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(
      "Skip to the push attempts",
    );
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("attempts-heading");
    await page.locator("a.skip").focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("webhook-name");

    // Keyboard only: focus the name field, type, Tab to the URL, type, Enter submits.
    await page.getByLabel("Name", { exact: true }).focus();
    await page.keyboard.type("local express");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("webhook-uri");
    await page.keyboard.type(receiverUrl);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("webhook-secret");
    await page.keyboard.type(HOOK_SECRET);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("webhook-token");
    await page.keyboard.type(HOOK_TOKEN);
    await page.keyboard.press("Enter");

    // Created with a token, it is verified (the box is checked by default, as the provider
    // verifies every webhook it creates), and the form says how it went.
    await expect
      .poll(() => page.locator("#webhook-result").textContent(), { timeout: 10_000 })
      .toBe("local express: Verification: passed");
    const hook = page.locator(".webhook", { hasText: "local express" });
    await expect.poll(() => hook.count(), { timeout: 15_000 }).toBe(1);
    expect(await hook.locator(".badge").allTextContents()).toEqual(["active", "standard"]);
    expect(await hook.locator(".bearer").textContent()).toBe(
      "Secret: set, its own, the bearer of every push",
    );
    expect(await hook.locator(".token").textContent()).toBe(
      "Token: set, the validation key of its verification",
    );
    await expect
      .poll(() => hook.locator(".challenge").textContent(), { timeout: 10_000 })
      .toBe("Verification: passed");

    // The send form has the new webhook picked; Tab order through the SMS fields.
    await page.locator("#send-status").focus();
    const outline = await page.evaluate(
      () => getComputedStyle(document.activeElement as Element).outlineStyle,
    );
    expect(outline).toBe("solid");
    await page.keyboard.type("DELIVRD");
    await page.keyboard.press("Tab");
    await page.keyboard.type("919812345678");
    await page.keyboard.press("Tab");
    await page.keyboard.type("order-7");
    await page.getByRole("button", { name: "Send SMS", exact: true }).focus();
    await page.keyboard.press("Enter");

    const delivered = page.locator('#attempts li[data-outcome="delivered"]');
    await expect.poll(() => delivered.count(), { timeout: 10_000 }).toBe(1);
    expect(await delivered.locator(".outcome").textContent()).toBe("delivered");
    expect(await delivered.locator(".tries").textContent()).toBe("attempt 1/4");
    expect(await delivered.locator(".result").textContent()).toBe("HTTP 200");
    expect(await delivered.locator(".target").textContent()).toBe(`POST ${receiverUrl}`);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ custom: "order-7", mobile: "919812345678" });

    // The exact request, the secret masked, and the receiver's reply body.
    await delivered.locator("summary").click();
    const shown = await delivered.locator("details").textContent();
    expect(shown).toContain("authorization: Bearer ********");
    expect(shown).toContain('"custom": "order-7"');
    expect(shown).toContain("content-type: application/json");
    expect(await delivered.locator(".reply").textContent()).not.toBe("");
    await page.screenshot({ path: `${ARTIFACTS}dashboard-1280.png`, fullPage: true });
  });

  it("shows a refused push retrying with the reply, retries it now, resends, edits and deletes", async () => {
    const hookUrl = `${receiverUrl}?from=dashboard`;
    await page.getByLabel("Name", { exact: true }).fill("wrong secret");
    await page.getByLabel("URL that receives the reports").fill(hookUrl);
    await page.locator("#webhook-secret").fill("not-the-receivers-secret");
    await page.getByRole("button", { name: "Create webhook" }).click();
    const hook = page.locator(".webhook", { hasText: "wrong secret" });
    await expect.poll(() => hook.count(), { timeout: 15_000 }).toBe(1);

    // The card's "Send SMS" sends at once, and says so on the card.
    await hook.getByRole("button", { name: /^Send SMS/ }).click();
    await expect
      .poll(() => hook.locator(".card-result").textContent(), { timeout: 10_000 })
      .toMatch(/^Queued: report \S+:1$/);
    const retrying = page.locator('#attempts li[data-outcome="retrying"]');
    await expect.poll(() => retrying.count(), { timeout: 10_000 }).toBe(1);
    expect(await retrying.locator(".result").textContent()).toBe("HTTP 401");
    expect(await retrying.locator(".next").textContent()).toMatch(/next retry at \d\d:\d\d/);
    // Why, without opening the card.
    expect(await retrying.locator(".reason").isVisible()).toBe(true);
    expect(await retrying.locator(".reason").textContent()).toBe(
      "Receiver said: The secret in an Authorization: Bearer <secret> header is not one this receiver accepts.",
    );
    const reply = await retrying.locator(".reply").textContent();
    expect(reply).not.toBe("(empty)");
    const reportId = await retrying.getAttribute("data-report");

    await retrying.getByRole("button", { name: /^Retry now/ }).click();
    const cards = page.locator(`#attempts li.attempt[data-report="${reportId}"]`);
    await expect.poll(() => cards.count(), { timeout: 10_000 }).toBe(2);
    // One timeline for the report, in order; only its newest attempt offers "Retry now", and
    // the first one, settled, no longer waits for a retry.
    expect(await page.locator(`#attempts li.report[data-report-id="${reportId}"]`).count()).toBe(1);
    expect(await cards.locator(".tries").allTextContents()).toEqual(["attempt 1/4", "attempt 2/4"]);
    expect(await cards.first().getAttribute("data-outcome")).toBe("retried");
    expect(await cards.first().locator(".next").count()).toBe(0);
    expect(await page.locator("#attempts .retry-now").count()).toBe(1);

    // Resend the delivered report: the same report again, as a provider retry. The receiver
    // acknowledges it (delivered) without running the handler a second time.
    const delivered = page.locator('#attempts li[data-outcome="delivered"]');
    await delivered.getByRole("button", { name: /^Resend/ }).click();
    await expect.poll(() => delivered.count(), { timeout: 10_000 }).toBe(2);
    const ids = await delivered.evaluateAll((rows) =>
      rows.map((r) => r.getAttribute("data-report")),
    );
    expect(ids[0]).toBe(ids[1]);
    expect(ids[0]).toBe(received[0]?.id);
    expect(received).toHaveLength(1);

    // Edit: make it inactive.
    await hook.getByRole("button", { name: /^Edit/ }).click();
    expect(await page.locator("#webhook-form-title").textContent()).toBe(
      "Edit webhook wrong secret",
    );
    await page.getByLabel(/^Active/).uncheck();
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect
      .poll(() => hook.locator(".badge").first().textContent(), { timeout: 15_000 })
      .toBe("inactive");

    // Delete asks once more on the same button.
    const remove = hook.locator('button[data-action="delete"]');
    await remove.click();
    expect(await remove.textContent()).toMatch(/^Confirm delete/);
    await remove.click();
    await expect.poll(() => hook.count(), { timeout: 15_000 }).toBe(0);
  });

  it("renders names and replies as text, never as markup, and never shows a secret or a token", async () => {
    const name = '<img src=x onerror="window.hacked=1">';
    await page.getByLabel("Name", { exact: true }).fill(name);
    await page.getByLabel("URL that receives the reports").fill(receiverUrl);
    await page.getByRole("button", { name: "Create webhook" }).click();
    await expect
      .poll(() => page.locator(".webhook .name", { hasText: "<img" }).count(), { timeout: 15_000 })
      .toBe(1);
    expect(await page.locator("#webhooks img").count()).toBe(0);
    expect(await page.evaluate(() => (window as { hacked?: number }).hacked)).toBeUndefined();
    // Everything the page holds, opened up: no API token, no webhook secret or token.
    await page.evaluate(() => {
      for (const d of document.querySelectorAll("details")) d.open = true;
    });
    const html = await page.content();
    expect(html).not.toContain(HOOK_SECRET);
    expect(html).not.toContain(HOOK_TOKEN);
    expect(html).not.toContain("not-the-receivers-secret");
    expect(html).not.toContain(API_TOKEN);
  });

  it("lists a composed webhook as it is created, and makes a call to it from the page", async () => {
    const ack = receiverUrl.replace(/\/webhooks$/, "/ack");
    sandbox.createComposedWebhook({
      name: "composed calls",
      type: "call",
      method: "GET",
      url: `${ack}?call_id={{id}}&message_status={{status}}`,
      secret: HOOK_SECRET,
    });
    const hook = page.locator(".webhook", { hasText: "composed calls" });
    await expect.poll(() => hook.count(), { timeout: 15_000 }).toBe(1);
    expect(await hook.locator(".badge").allTextContents()).toEqual([
      "active",
      "composed, call reports",
    ]);
    expect(await hook.locator("button").allTextContents()).toEqual([
      "Make call to composed calls now",
      "Edit composed calls",
      "Delete composed calls",
    ]);
    // A call with chosen fields: the form.
    await page.locator("#send-webhook").selectOption({ label: "composed calls" });
    await page.locator("#kind-call").check();
    expect(await page.locator("#send-status").getAttribute("list")).toBe("call-statuses");
    await page.getByLabel("Status").fill("BUSY");
    await page.getByLabel("Duration (seconds)").fill("0");
    await page.getByRole("button", { name: "Make call", exact: true }).click();
    const row = page
      .locator("#attempts li.report", { hasText: "Call report" })
      .locator('li.attempt[data-outcome="delivered"]');
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    expect(await row.locator(".target").textContent()).toMatch(
      new RegExp(`^GET ${ack.replaceAll(".", "\\.")}\\?call_id=[0-9a-f-]+&message_status=BUSY$`),
    );
    expect(await row.locator(".reply").textContent()).toBe("ack");
    await page.screenshot({ path: `${ARTIFACTS}dashboard-1280-timeline.png`, fullPage: true });
  });

  it("is readable at 400 px wide: one column, no horizontal scrolling", async () => {
    await page.setViewportSize({ width: 400, height: 800 });
    await page.evaluate(() => {
      for (const d of document.querySelectorAll("details")) d.open = true;
    });
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(widths.scroll).toBeLessThanOrEqual(400);
    expect(widths.scroll).toBe(widths.client);
    await page.screenshot({ path: `${ARTIFACTS}dashboard-400.png` });
    await page.locator("#attempts-heading").scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}dashboard-400-attempts.png` });
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
