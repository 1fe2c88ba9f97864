// The sandbox dashboard in a real browser (headless Chromium): create a webhook pointing at a
// live Express receiver, send an SMS from the page, watch the attempt turn "delivered", inspect
// the request and the reply, retry, resend, edit, delete; by keyboard; at 1280×800 and 400 px.
import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createClient } from "@reportkit/client";
import type { DeliveryReport } from "@reportkit/core";
import { webhookReceiver } from "@reportkit/express";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import express from "express";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stop } from "../sandbox/servers.js";
import { type Chromium, requireChromium, startChromium } from "../support/chromium.js";

const API_TOKEN = "dashboard-api-token-4242";
// The webhook's secret (the bearer of every push) and its token (its verification's key).
const HOOK_SECRET = "dashboard-hook-secret-0123456789";
const HOOK_TOKEN = "dashboard-hook-token-9876543210";
const ARTIFACTS = fileURLToPath(new URL("../artifacts/", import.meta.url));

describe.runIf(requireChromium("test/dashboard/dashboard.test.ts"))("sandbox dashboard", () => {
  let sandbox: Sandbox;
  let browser: Chromium;
  let page: Page;
  let receiverUrl: string;
  let closeReceiver: () => Promise<void>;
  const received: DeliveryReport[] = [];

  beforeAll(async () => {
    const app = express();
    app.get("/ack", (_req, res) => {
      res.type("text/plain").send("ack");
    });
    // Refuses its first push as reportkit would a wrong secret, then takes the retry.
    let flakyCalls = 0;
    app.post("/flaky", (_req, res) => {
      flakyCalls++;
      if (flakyCalls === 1) {
        res.status(401).json({
          ok: false,
          error: {
            code: "unauthorized",
            message:
              "The secret in an Authorization: Bearer <secret> header is not one this receiver accepts.",
          },
        });
      } else res.json({ ok: true });
    });
    app.use(
      webhookReceiver({
        path: "/webhooks",
        secret: HOOK_SECRET,
        verificationToken: HOOK_TOKEN,
        timeZone: "Asia/Kolkata",
        onDelivery: (report) => {
          received.push(report);
        },
      }),
    );
    const server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    closeReceiver = () => stop(server);
    // An hour between attempts: a failed push waits for "Retry now".
    sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 3_600_000 });
    browser = await startChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
    await closeReceiver?.();
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
