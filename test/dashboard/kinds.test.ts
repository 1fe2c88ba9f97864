// The sandbox dashboard in a real browser (headless Chromium) pushes every kind the provider does
// from its send form (a Click2Call report, an opt-out, another channel's event), each shown in
// the feed by what it is, and each reaching the receiver's handler of its kind.
import { createClient } from "@reportkit/client";
import type { Sandbox } from "@reportkit/sandbox";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireChromium } from "../support/chromium.js";
import { API_TOKEN, type DashboardRig, HOOK_SECRET, startDashboardRig } from "./dashboard-rig.js";

describe.runIf(requireChromium("test/dashboard/kinds.test.ts"))("sandbox dashboard", () => {
  let rig: DashboardRig | undefined;
  let sandbox: Sandbox;
  let page: Page;

  beforeAll(async () => {
    rig = await startDashboardRig();
    ({ sandbox, page } = rig);
    const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
    await client.webhooks.create({ name: "kinds", uri: rig.receiverUrl, secret: HOOK_SECRET });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(sandbox.dashboardUrl);
    await page.locator("#connection", { hasText: /^Live$/ }).waitFor({ timeout: 15_000 });
    await page.locator(".webhook", { hasText: "kinds" }).waitFor({ timeout: 15_000 });
  });
  afterAll(async () => {
    await rig?.close();
  });

  /** Sends the form; the report's id, once the sandbox said it queued it. */
  async function send(button: string): Promise<string> {
    await page.getByRole("button", { name: button, exact: true }).click();
    const said = page.locator("#send-result");
    await expect.poll(() => said.textContent(), { timeout: 10_000 }).toMatch(/^Queued: report /);
    return /^Queued: report (\S+)/.exec((await said.textContent()) ?? "")?.[1] ?? "";
  }
  /** The report's timeline in the feed, once its push was delivered. */
  async function delivered(id: string) {
    const group = page.locator(`#attempts li.report[data-report-id="${id}"]`);
    await expect
      .poll(() => group.getAttribute("data-state"), { timeout: 10_000 })
      .toBe("delivered");
    return group;
  }

  it("pushes an opt-out to the webhook it subscribes to its event, shown as one", async () => {
    await page.getByLabel(/^Opt-out/).check();
    // The event picker lists the opt-outs, from the live feed.
    expect(await page.locator("#send-event option").allTextContents()).toEqual([
      "sms:unsubscription",
      "whatsapp:unsubscription",
      "rcs:unsubscription",
      "voice:unsubscription",
      "viber:unsubscription",
    ]);
    expect(await page.locator("#send-status").isVisible()).toBe(false);
    await page.locator("#send-event").selectOption("voice:unsubscription");
    await page.getByLabel("Number that opted out (digits)").fill("919812345678");
    await page.getByLabel("Opted out of").selectOption("all");
    const id = await send("Opt out");
    expect(await page.locator("#send-result").textContent()).toContain(
      "(subscribed the webhook to voice:unsubscription)",
    );
    const group = await delivered(id);
    expect(await group.locator(".report-type").textContent()).toBe("Opt-out voice:unsubscription");
    // No pull API lists an opt-out: nothing is asked of them.
    expect(await group.locator(".pull-status").textContent()).toBe("");
    expect(rig?.optOuts.map((r) => [r.id, r.receiver, r.scope, r.value])).toEqual([
      [id, "919812345678", "all", "*"],
    ]);
  });

  it("pushes another channel's event and a Click2Call report, each shown by what it is", async () => {
    await page.getByLabel(/^Other event/).check();
    await page.locator("#send-event").selectOption("whatsapp:message:status");
    await page.locator("#send-status").fill("read");
    const event = await send("Push event");
    const eventGroup = await delivered(event);
    expect(await eventGroup.locator(".report-type").textContent()).toBe(
      "Event whatsapp:message:status",
    );
    expect(rig?.events.map((r) => [r.event, r.id, r.status])).toEqual([
      ["whatsapp:message:status", event, "read"],
    ]);

    await page.getByLabel("Click2Call report").check();
    await page.getByLabel(/^To \(digits/).fill("flow:220");
    const call = await send("Make Click2Call");
    const callGroup = await delivered(call);
    expect(await callGroup.locator(".report-type").textContent()).toBe("Call report");
    expect(rig?.calls.map((r) => [r.source, r.flowId, r.status, r.status2])).toEqual([
      ["C2C", 220, "COMPLETED", "ANSWER"],
    ]);
  });
});
