// `reportkit reconcile` (the CLI's main, in process) on what the binary test does not cover:
// calls, a receiver that fails or echoes the secret, redirects, a custom credential header, an
// unreachable API, a pull that stops mid-day, dry runs and where the secret comes from. A real
// Express receiver over HTTP and the paging stand-in of the provider's API.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { main } from "@reportkit/cli";
import type { CallReport, DeliveryReport } from "@reportkit/core";
import { webhookReceiver } from "@reportkit/express";
import express from "express";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type PullApiServer,
  type PulledCall,
  type PulledMessage,
  pulledMessage,
  startPullApiServer,
} from "../support/pull-api-server.js";

const API_TOKEN = "options-api-token-1618";
const SECRET = "options-webhook-secret-1414";
const DAY = "2024-06-24";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function reportkit(args: string[], env: Record<string, string> = {}): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await main(["node", "reportkit", "reconcile", ...args], {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: { REPORTKIT_BASE_URL: api.baseUrl, REPORTKIT_API_TOKEN: API_TOKEN, ...env },
    stopSignal: () => new Promise(() => {}),
  });
  return { code, stdout, stderr };
}

const summaryOf = (run: Run) => JSON.parse(run.stdout.trimEnd().split("\n").at(-1) ?? "");

let api: PullApiServer;
let messages: PulledMessage[] = [];
let calls: PulledCall[] = [];
let origin: string;
let otherOrigin: string;
let otherHits = 0;
const servers: http.Server[] = [];
let deliveries: { report: DeliveryReport; reconciled: string | null }[] = [];
let callReports: CallReport[] = [];
/** Message ids whose handler fails. */
const failing = new Set<string>();

function listen(app: http.RequestListener): Promise<string> {
  const server = http.createServer(app);
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

beforeAll(async () => {
  api = await startPullApiServer({
    apiToken: API_TOKEN,
    messages: () => messages,
    calls: () => calls,
  });
  otherOrigin = await listen((_req, res) => {
    otherHits += 1;
    res.writeHead(200).end('{"ok":true}');
  });
  const app = express();
  // A framework's redirect to the path with a trailing slash (same origin), and one elsewhere.
  app.post("/moved", (_req, res) => res.redirect(308, "/webhooks"));
  app.post("/elsewhere", (_req, res) => res.redirect(307, `${otherOrigin}/webhooks`));
  // A receiver that echoes the credential it was sent, in any case.
  app.post("/echo", (req, res) => {
    res.status(500).send(`bad: ${String(req.headers.authorization).toUpperCase()}`);
  });
  app.post("/silent", () => {});
  app.use(
    webhookReceiver({
      token: SECRET,
      logger: false,
      onDelivery: (report, ctx) => {
        if (failing.has(report.id)) throw new Error("the orders table is locked");
        deliveries.push({ report, reconciled: ctx.headers.get("x-reportkit-reconciled") });
      },
      onCall: (report) => {
        callReports.push(report);
      },
    }),
  );
  app.use(
    "/keyed",
    webhookReceiver({
      token: SECRET,
      header: "x-api-key",
      logger: false,
      onDelivery: (report) => {
        deliveries.push({ report, reconciled: null });
      },
    }),
  );
  origin = await listen(app);
});

afterAll(async () => {
  await api?.close();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

beforeEach(() => {
  messages = [];
  calls = [];
  deliveries = [];
  callReports = [];
  failing.clear();
  otherHits = 0;
});

const ids = (n: number, status = "DELIVRD") =>
  Array.from({ length: n }, () => pulledMessage({ id: `${crypto.randomUUID()}:1`, status }));

describe("SMS: what the receiver gets", () => {
  it("the report the provider would have pushed, marked as reconciled", async () => {
    messages = [
      pulledMessage({
        id: "469ea920-ccd1-4a39-b728-c0b6f15f6aa6:1",
        mobile: "918921269300",
        status: "DELIVRD",
        units: 2,
        charges: 2,
        custom: "order-42",
        custom1: "batch-7",
        location: "India",
        provider: "Jio",
        submitted_at: `${DAY} 09:57:42`,
        delivered_at: `${DAY} 09:57:49`,
      }),
    ];
    const run = await reportkit(["--to", `${origin}/webhooks`, "--secret", SECRET, "--date", DAY]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      `469ea920-ccd1-4a39-b728-c0b6f15f6aa6:1  DELIVRD  processed\nsms/status date=${DAY}: pulled 1 in 1 page, 0 pending, 1 final: 1 processed, 0 duplicate, 0 queued, 0 failed\n`,
    );
    const [got] = deliveries;
    expect(got?.reconciled).toBe("sms/status");
    expect(got?.report).toMatchObject({
      id: "469ea920-ccd1-4a39-b728-c0b6f15f6aa6:1",
      mobile: "918921269300",
      status: "DELIVRD",
      credits: "2.0000",
      units: 2,
      custom: "order-42",
      // 09:57:49 in Asia/Kolkata
      deliveredAt: new Date("2024-06-24T04:27:49.000Z"),
      submittedAt: new Date("2024-06-24T04:27:42.000Z"),
      sentAt: null,
      cid: null,
      warnings: [],
    });
    expect(got?.report.raw).toEqual({
      id: "469ea920-ccd1-4a39-b728-c0b6f15f6aa6:1",
      mobile: "918921269300",
      status: "DELIVRD",
      credits: "2.0000",
      units: 2,
      deliv_time: `${DAY} 09:57:49`,
      submit_time: `${DAY} 09:57:42`,
      custom: "order-42",
      custom1: "batch-7",
      location: "India",
      provider: "Jio",
    });
  });

  it("lists the ones the receiver refused with their ids, exits 1, and the rest are processed", async () => {
    messages = ids(3);
    failing.add(messages[1]?.id as string);
    const run = await reportkit([
      "--to",
      `${origin}/webhooks`,
      "--secret",
      SECRET,
      "--date",
      DAY,
      "--json",
    ]);
    expect(run.code).toBe(1);
    const summary = summaryOf(run);
    expect(summary).toMatchObject({ final: 3, processed: 2, failed: 1 });
    expect(summary.failures).toEqual([
      {
        id: messages[1]?.id,
        status: "DELIVRD",
        httpStatus: 500,
        reason:
          'HTTP 500: {"ok":false,"error":{"code":"handler_failed","message":"The report handler failed; the provider will retry this report."}}',
      },
    ]);
    expect(run.stderr).toBe(
      "reportkit: 1 of 3 reports were not answered 200 or 202 (listed above); fix the receiver and run again: what it already recorded comes back as a duplicate.\n",
    );
    // Fixed, a second run sends the one that failed; the others are duplicates.
    failing.clear();
    const again = await reportkit([
      "--to",
      `${origin}/webhooks`,
      "--secret",
      SECRET,
      "--date",
      DAY,
      "--json",
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(summaryOf(again)).toMatchObject({ processed: 1, duplicate: 2, failed: 0 });
  });

  it("never prints the secret, even when the receiver echoes it (in any case)", async () => {
    messages = ids(1);
    const run = await reportkit(["--to", `${origin}/echo`, "--token", SECRET, "--date", DAY]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("failed: HTTP 500: bad: BEARER [token]");
    expect(`${run.stdout}${run.stderr}`.toLowerCase()).not.toContain(SECRET);
  });

  it("follows a redirect within the receiver's origin, never to another", async () => {
    messages = ids(1);
    const moved = await reportkit([
      "--to",
      `${origin}/moved`,
      "--secret",
      SECRET,
      "--date",
      DAY,
      "--json",
    ]);
    expect(summaryOf(moved)).toMatchObject({ processed: 1, failed: 0 });
    messages = ids(1);
    const away = await reportkit([
      "--to",
      `${origin}/elsewhere`,
      "--secret",
      SECRET,
      "--date",
      DAY,
      "--json",
    ]);
    expect(away.code).toBe(1);
    expect(summaryOf(away).failures[0]).toMatchObject({
      httpStatus: 307,
      reason: `redirected (307) to another origin, ${otherOrigin}: not followed, the request carries the webhook's secret. Give --to the address the receiver really answers at`,
    });
    expect(otherHits).toBe(0);
  });

  it("gives up on a receiver that does not answer after --timeout", async () => {
    messages = ids(1);
    const run = await reportkit([
      "--to",
      `${origin}/silent`,
      "--secret",
      SECRET,
      "--date",
      DAY,
      "--timeout",
      "300ms",
      "--json",
    ]);
    expect(run.code).toBe(1);
    expect(summaryOf(run).failures[0]).toMatchObject({
      httpStatus: null,
      reason: "no answer within 300 ms",
    });
  });

  it("sends the secret in a custom header with --header", async () => {
    messages = ids(2);
    const run = await reportkit([
      "--to",
      `${origin}/keyed`,
      "--secret",
      SECRET,
      "--header",
      "X-Api-Key",
      "--date",
      DAY,
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(summaryOf(run)).toMatchObject({ processed: 2 });
  });

  it("takes the secret from REPORTKIT_SECRET, else REPORTKIT_TOKEN", async () => {
    messages = ids(1);
    const args = ["--to", `${origin}/webhooks`, "--date", DAY, "--json"];
    expect(
      summaryOf(await reportkit(args, { REPORTKIT_SECRET: SECRET, REPORTKIT_TOKEN: "wrong" })),
    ).toMatchObject({ processed: 1 });
    expect(summaryOf(await reportkit(args, { REPORTKIT_TOKEN: SECRET }))).toMatchObject({
      duplicate: 1,
    });
    const none = await reportkit(args);
    expect(none).toMatchObject({
      code: 1,
      stdout: "",
      stderr:
        "reportkit: give --secret (or set REPORTKIT_SECRET): the webhook's secret, which your receiver checks.\n",
    });
  });

  it("with --dry-run lists what it would send and sends nothing", async () => {
    messages = [...ids(2), ...ids(1, "AWAITING-DLR")];
    const run = await reportkit(["--date", DAY, "--dry-run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      `would send ${messages[0]?.id}  DELIVRD\nwould send ${messages[1]?.id}  DELIVRD\nsms/status date=${DAY}: pulled 3 in 1 page, 1 pending, 2 final (dry run: nothing sent)\n`,
    );
    expect(deliveries).toEqual([]);
  });

  it("asks for one message by --id, and a group by --group", async () => {
    messages = ids(2);
    const id = messages[1]?.id as string;
    const one = await reportkit(["--id", id, "--dry-run", "--json"]);
    expect(summaryOf(one)).toMatchObject({ query: { id }, pulled: 1, pages: 1 });
    const group = id.split(":")[0] as string;
    const byGroup = await reportkit(["--group", group, "--dry-run", "--json"]);
    expect(summaryOf(byGroup)).toMatchObject({ query: { group_id: group }, pulled: 1 });
    expect(api.requests.slice(-2)).toEqual([
      `GET /api/v2/sms/status?id=${encodeURIComponent(id)}&page=1`,
      `GET /api/v2/sms/status?group_id=${group}&page=1`,
    ]);
  });
});

describe("when the provider's API fails", () => {
  it("an unreachable API is exit 1 with a clear message, and nothing is sent", async () => {
    messages = ids(1);
    const closed = await listen(() => {});
    servers.at(-1)?.close();
    const run = await reportkit(["--to", `${origin}/webhooks`, "--secret", SECRET, "--date", DAY], {
      REPORTKIT_BASE_URL: `${closed}/api/v2/`,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^reportkit: GET sms\/status failed: could not reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\) \(after 3 attempts\)\.\n$/,
    );
    expect(run.stdout).toBe("");
    expect(deliveries).toEqual([]);
  });

  it("a page that fails after reports were sent: what was sent is summed up, exit 1, run again", async () => {
    messages = ids(150);
    // Page 1 answers, then page 2 fails (a 500 is not retried).
    api.failPage(2, 500);
    const run = await reportkit([
      "--to",
      `${origin}/webhooks`,
      "--secret",
      SECRET,
      "--date",
      DAY,
      "--json",
    ]);
    expect(run.code).toBe(1);
    expect(summaryOf(run)).toMatchObject({
      complete: false,
      pages: 2,
      pulled: 100,
      processed: 100,
    });
    expect(run.stderr).toBe(
      "reportkit: GET sms/status failed with 500 Internal Server Error: stand-in failure 500. The pull stopped after 2 pages; 100 reports were sent. Run it again to finish: what was already recorded comes back as a duplicate.\n",
    );
    const again = await reportkit([
      "--to",
      `${origin}/webhooks`,
      "--secret",
      SECRET,
      "--date",
      DAY,
      "--json",
    ]);
    expect(summaryOf(again)).toMatchObject({ complete: true, processed: 50, duplicate: 100 });
  });
});

describe("calls, from the call-status API", () => {
  it("sends each ended call as the call report, deduplicated against the push; others pending", async () => {
    const call = (id: string, status: string, end: string): PulledCall => ({
      id,
      channel: "outgoing",
      from: "918068281235",
      to: "919876543210",
      created_at: `${DAY} 08:27:14`,
      foreign_id: "",
      status,
      start_at: `${DAY} 08:27:26`,
      end_at: end,
      dtmf: "",
    });
    const answered = crypto.randomUUID();
    const busy = crypto.randomUUID();
    calls = [
      call(answered, "ANSWER", `${DAY} 08:27:49`),
      call(busy, "BUSY", `${DAY} 08:27:26`),
      call(crypto.randomUUID(), "ANSWER", ""),
      call(crypto.randomUUID(), "RINGING", ""),
    ];
    // The answered call's report was pushed before (the provider's sample shape, numbers).
    const pushed = await fetch(`${origin}/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
      body: JSON.stringify({
        bridge: 918068281234,
        from: 918068281235,
        to: 919876543210,
        start_at: `${DAY} 08:27:26`,
        end_at: `${DAY} 08:27:49`,
        duration: "23",
        mid: answered,
        flow_id: 4521,
        status: "ANSWER",
        source: "OBD",
      }),
    });
    expect(await pushed.text()).toBe('{"ok":true}');
    const run = await reportkit([
      "--calls",
      "--to",
      `${origin}/webhooks`,
      "--secret",
      SECRET,
      "--date",
      DAY,
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(summaryOf(run)).toMatchObject({
      kind: "call",
      pulled: 4,
      pending: 2,
      final: 2,
      processed: 1,
      duplicate: 1,
    });
    expect(api.requests.at(-1)).toBe(`GET /api/v2/outgoing/callstatus?date=${DAY}&page=1`);
    const [, reconciled] = callReports;
    expect(reconciled).toMatchObject({
      mid: busy,
      from: "918068281235",
      to: "919876543210",
      status: "BUSY",
      duration: 0,
      startedAt: new Date("2024-06-24T02:57:26.000Z"),
      bridge: null,
      flowId: null,
      source: null,
      recordingUrl: null,
    });
  });

  it("refuses --group with --calls before asking anything", async () => {
    const count = api.requests.length;
    const run = await reportkit(["--calls", "--group", "g", "--dry-run"]);
    expect(run).toMatchObject({
      code: 1,
      stderr: "reportkit: the call-status API has no group filter: give date, id, cid or mobile.\n",
    });
    expect(api.requests.length).toBe(count);
  });
});
