// `reportkit insights`'s page in a real browser (headless Chromium) against a ledger the sandbox
// seeded through a real receiver: every chart drawn with data and a table of the same numbers
// under it, no Content-Security-Policy violation; the operator filter changes them; and the
// server's guards (loopback only, Host check, the key, no CORS, the CSP, no inline script).
import { copyFileSync } from "node:fs";
import { main } from "@reportkit/cli";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS } from "../dashboard/dashboard-rig.js";
import { type Chromium, requireChromium, startChromium } from "../support/chromium.js";
import { requirePostgresServer } from "../support/postgres-server.js";
import { DAY, PREVIOUS_DAY, type SeededLedger, seedLedger } from "./seed-rig.js";

const SECTIONS = [
  "messages-by-day",
  "rate-by-operator",
  "rate-by-circle",
  "rate-by-campaign",
  "failures-by-reason",
  "failures-by-status",
  "latency-by-day",
  "latency-by-operator",
  "credits-by-day",
  "calls-by-day",
  "opt-outs-by-day",
  "opt-outs-by-sender",
];

/** Each section's chart: how many points it draws and their sum; its table's row count. */
function drawn(page: Page) {
  return page.evaluate((ids) => {
    const chartOf = (globalThis as unknown as { Chart: { getChart(c: Element): unknown } }).Chart;
    return ids.map((id) => {
      const section = document.getElementById(id);
      const canvas = section?.querySelector("canvas");
      const chart = canvas
        ? (chartOf.getChart(canvas) as
            | { data: { datasets: { data: (number | null)[] }[] } }
            | undefined)
        : undefined;
      const values = (chart?.data.datasets ?? []).flatMap((d) => d.data).filter((v) => v !== null);
      return {
        id,
        points: values.length,
        sum: values.reduce((a: number, b) => a + Number(b), 0),
        rows: section?.querySelectorAll("tbody tr").length ?? 0,
        width: canvas?.width ?? 0,
      };
    });
  }, SECTIONS);
}

describe.runIf(
  requirePostgresServer("test/insights/page.test.ts") &&
    requireChromium("test/insights/page.test.ts"),
)("reportkit insights: the page", () => {
  let ledger: SeededLedger;
  let browser: Chromium;
  let url: string;
  let stop: (signal: string) => void = () => {};
  let exited: Promise<number>;
  let stderr = "";

  beforeAll(async () => {
    ledger = await seedLedger();
    let stdout = "";
    let printed: (line: string) => void = () => {};
    const urlPrinted = new Promise<string>((resolve) => {
      printed = resolve;
    });
    exited = main(
      [
        "node",
        "reportkit",
        "insights",
        "--database-url",
        ledger.url,
        "--port",
        "0",
        "--from",
        PREVIOUS_DAY,
        "--to",
        DAY,
      ],
      {
        stdout: (text) => {
          stdout += text;
          const found = /reportkit insights on (http:\S+)/.exec(stdout);
          if (found) printed(found[1] as string);
        },
        stderr: (text) => {
          stderr += text;
        },
        env: {},
        stopSignal: () =>
          new Promise((resolve) => {
            stop = resolve;
          }),
      },
    );
    url = await Promise.race([
      urlPrinted,
      exited.then((code) => {
        throw new Error(`reportkit insights exited ${code}: ${stderr}`);
      }),
    ]);
    browser = await startChromium();
  });
  afterAll(async () => {
    await browser?.close();
    stop("SIGTERM");
    await exited;
    await ledger?.close();
  });

  it("draws every chart with data, a table under each, within its CSP", async () => {
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(url);
    await expect
      .poll(() => page.locator("#status").getAttribute("data-state"), { timeout: 15_000 })
      .toBe("ready");
    // The key leaves the address bar once read.
    expect(page.url()).not.toContain("#key=");
    for (const section of await drawn(page)) {
      expect(section.points, section.id).toBeGreaterThan(0);
      expect(section.sum, section.id).toBeGreaterThan(0);
      expect(section.rows, section.id).toBeGreaterThan(0);
      expect(section.width, section.id).toBeGreaterThan(100);
    }
    // The table under the first chart is the ledger's numbers.
    const messages = ledger.messages.filter((m) => m.day === DAY).length;
    expect(
      await page.locator("#messages-by-day tbody tr").nth(1).locator("td").nth(1).textContent(),
    ).toBe(String(messages));
    expect(await page.locator("#summary").textContent()).toContain(
      `Messages${ledger.messages.length}`,
    );
    expect(await page.locator("#from").inputValue()).toBe(PREVIOUS_DAY);
    expect(problems).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}insights.png`, fullPage: true });
    if (process.env.REPORTKIT_DOCS_SCREENSHOT) {
      copyFileSync(`${ARTIFACTS}insights.png`, new URL("../../docs/insights.png", import.meta.url));
    }
  });

  it("filters by operator: the charts and tables change to that operator's messages", async () => {
    const page = browser.context.pages()[0] as Page;
    const before = await drawn(page);
    await page.getByLabel("Operator", { exact: true }).fill("Jio");
    await page.getByRole("button", { name: "Show" }).click();
    await expect
      .poll(() => page.locator("#range").textContent(), { timeout: 15_000 })
      .toContain("only provider Jio");
    const jio = ledger.messages.filter((m) => m.report.provider === "Jio");
    const cells = await page
      .locator("#messages-by-day tbody tr")
      .evaluateAll((rows) => rows.map((row) => row.querySelectorAll("td")[1]?.textContent));
    expect(cells).toEqual([
      String(jio.filter((m) => m.day === PREVIOUS_DAY).length),
      String(jio.filter((m) => m.day === DAY).length),
    ]);
    // One operator left in its chart; the message charts' sums changed, the calls' did not.
    const after = await drawn(page);
    const byId = (list: typeof after, id: string) => list.find((s) => s.id === id);
    expect(byId(after, "rate-by-operator")?.points).toBe(1);
    expect(byId(after, "messages-by-day")?.sum).toBe(jio.length);
    expect(byId(after, "messages-by-day")?.sum).not.toBe(byId(before, "messages-by-day")?.sum);
    expect(byId(after, "calls-by-day")?.sum).toBe(byId(before, "calls-by-day")?.sum);
    // The address keeps the query: a reload shows the same.
    expect(new URL(page.url()).searchParams.get("provider")).toBe("Jio");
    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect
      .poll(() => page.locator("#range").textContent(), { timeout: 15_000 })
      .not.toContain("only");
  });

  it("answers only on loopback names, with the key, without CORS, under its CSP", async () => {
    const { origin, hash } = new URL(url);
    const key = new URLSearchParams(hash.slice(1)).get("key") as string;
    expect(new URL(url).hostname).toBe("127.0.0.1");
    const page = await fetch(`${origin}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("access-control-allow-origin")).toBeNull();
    const html = await page.text();
    // Every script is a file of the page's own origin: none inline, none from elsewhere.
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src="[a-z.-]+\.js"/);
      expect(body?.trim()).toBe("");
    }
    const api = `${origin}/api/insights?from=${PREVIOUS_DAY}&to=${DAY}`;
    expect((await fetch(api)).status).toBe(401);
    const withKey = await fetch(api, {
      headers: { "x-reportkit-insights-key": key, origin: "https://evil.example" },
    });
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get("access-control-allow-origin")).toBeNull();
    expect(((await withKey.json()) as { summary: { messages: number } }).summary.messages).toBe(
      ledger.messages.length,
    );
    // A page on a name rebound to 127.0.0.1 (DNS rebinding) is refused.
    const rebound = await new Promise<number>((resolve, reject) => {
      import("node:http").then(({ request }) => {
        const req = request(`${origin}/api/insights`, {
          headers: { host: "evil.example", "x-reportkit-insights-key": key },
        });
        req.on("response", (res) => resolve(res.statusCode ?? 0));
        req.on("error", reject);
        req.end();
      });
    });
    expect(rebound).toBe(403);
    const bad = await fetch(`${origin}/api/insights?from=${DAY}&to=${PREVIOUS_DAY}`, {
      headers: { "x-reportkit-insights-key": key },
    });
    expect([bad.status, ((await bad.json()) as { error: string }).error]).toEqual([
      400,
      "readInsights: `to` must be after `from` (a day `to` is included).",
    ]);
    expect((await fetch(`${origin}/api/insights`, { method: "POST" })).status).toBe(405);
  });
});
