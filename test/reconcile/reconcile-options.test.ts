// `reportkit reconcile` (the CLI's main, in process) on SMS, beyond the binary test: the report
// a record becomes, a receiver that fails or echoes the secret, redirects, a timeout, a custom
// credential header, where the secret comes from, dry runs and filters. A real Express receiver
// over HTTP and the paging stand-in of the provider's API (rig.ts).
import { describe, expect, it } from "vitest";
import { pulledMessage } from "../support/pull-api-server.js";
import { DAY, ids, SECRET, summaryOf, useRig } from "./rig.js";

const rig = useRig();

describe("SMS: what the receiver gets", () => {
  it("the report the provider would have pushed, marked as reconciled", async () => {
    rig.messages = [
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
    const run = await rig.reconcile([
      "--to",
      `${rig.origin}/webhooks`,
      "--secret",
      SECRET,
      "--date",
      DAY,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      `469ea920-ccd1-4a39-b728-c0b6f15f6aa6:1  DELIVRD  processed\nsms/status date=${DAY}: pulled 1 in 1 page, 0 pending, 1 final: 1 processed, 0 duplicate, 0 queued, 0 failed\n`,
    );
    const [got] = rig.deliveries;
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

  it("sends a pulled HANDSET-BUSY and every other status the provider documents; not AWAITING-DLR", async () => {
    const busy = ids(1, "HANDSET-BUSY");
    const others = [...ids(1, "ABSENT-SUB"), ...ids(1, "INV-TEMPLATE"), ...ids(1, "THROTTLED")];
    const waiting = ids(1, "AWAITING-DLR");
    rig.messages = [...busy, ...others, ...waiting];
    const run = await rig.reconcileDay();
    expect(run.code, run.stderr).toBe(0);
    expect(summaryOf(run)).toMatchObject({ pulled: 5, pending: 1, final: 4, processed: 4 });
    const got = rig.deliveries.map(({ report }) => [report.id, report.status, report.final]);
    expect(got.sort()).toEqual([...busy, ...others].map((m) => [m.id, m.status, true]).sort());
    expect(
      rig.deliveries.find(({ report }) => report.status === "HANDSET-BUSY")?.report,
    ).toMatchObject({
      outcome: "undelivered",
      warnings: [],
    });
  });

  it("lists the ones the receiver refused with their ids, exits 1, and the rest are processed", async () => {
    rig.messages = ids(3);
    rig.failing.add(rig.messages[1]?.id as string);
    const run = await rig.reconcile([
      "--to",
      `${rig.origin}/webhooks`,
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
        id: rig.messages[1]?.id,
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
    rig.failing.clear();
    const again = await rig.reconcile([
      "--to",
      `${rig.origin}/webhooks`,
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
    rig.messages = ids(1);
    const run = await rig.reconcile([
      "--to",
      `${rig.origin}/echo`,
      "--token",
      SECRET,
      "--date",
      DAY,
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("failed: HTTP 500: bad: BEARER [token]");
    expect(`${run.stdout}${run.stderr}`.toLowerCase()).not.toContain(SECRET);
  });

  it("follows a redirect within the receiver's origin, never to another", async () => {
    rig.messages = ids(1);
    const moved = await rig.reconcile([
      "--to",
      `${rig.origin}/moved`,
      "--secret",
      SECRET,
      "--date",
      DAY,
      "--json",
    ]);
    expect(summaryOf(moved)).toMatchObject({ processed: 1, failed: 0 });
    rig.messages = ids(1);
    const away = await rig.reconcile([
      "--to",
      `${rig.origin}/elsewhere`,
      "--secret",
      SECRET,
      "--date",
      DAY,
      "--json",
    ]);
    expect(away.code).toBe(1);
    expect(summaryOf(away).failures[0]).toMatchObject({
      httpStatus: 307,
      reason: `redirected (307) to another origin, ${rig.otherOrigin}: not followed, the request carries the webhook's secret. Give --to the address the receiver really answers at`,
    });
    expect(rig.otherHits).toBe(0);
  });

  it("counts a 200 that is not reportkit's reply (an HTML page) as failed, not processed", async () => {
    rig.messages = ids(1);
    const args = ["--to", `${rig.origin}/page`, "--secret", SECRET, "--date", DAY, "--json"];
    const run = await rig.reconcile(args);
    expect(run.code).toBe(1);
    expect(summaryOf(run)).toMatchObject({ processed: 0, failed: 1 });
    expect(summaryOf(run).failures[0]).toMatchObject({
      httpStatus: 200,
      reason:
        "HTTP 200 but not reportkit's reply (text/html), so not counted as processed: is the URL your receiver's?: <!doctype html><title>My app</title>",
    });
  });

  it("gives up on a receiver that does not answer after --timeout", async () => {
    rig.messages = ids(1);
    const run = await rig.reconcile([
      "--to",
      `${rig.origin}/silent`,
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
    rig.messages = ids(2);
    const run = await rig.reconcile([
      "--to",
      `${rig.origin}/keyed`,
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
    rig.messages = ids(1);
    const args = ["--to", `${rig.origin}/webhooks`, "--date", DAY, "--json"];
    expect(
      summaryOf(await rig.reconcile(args, { REPORTKIT_SECRET: SECRET, REPORTKIT_TOKEN: "wrong" })),
    ).toMatchObject({ processed: 1 });
    expect(summaryOf(await rig.reconcile(args, { REPORTKIT_TOKEN: SECRET }))).toMatchObject({
      duplicate: 1,
    });
    const none = await rig.reconcile(args);
    expect(none).toMatchObject({
      code: 1,
      stdout: "",
      stderr:
        "reportkit: give --secret (or set REPORTKIT_SECRET): the webhook's secret, which your receiver checks.\n",
    });
  });

  it("with --dry-run lists what it would send and sends nothing", async () => {
    rig.messages = [...ids(2), ...ids(1, "AWAITING-DLR")];
    const run = await rig.reconcile(["--date", DAY, "--dry-run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      `would send ${rig.messages[0]?.id}  DELIVRD\nwould send ${rig.messages[1]?.id}  DELIVRD\nsms/status date=${DAY}: pulled 3 in 1 page, 1 pending, 2 final (dry run: nothing sent)\n`,
    );
    expect(rig.deliveries).toEqual([]);
  });

  it("a pulled id or status cannot forge a line: line breaks, ESC and bidi controls are shown escaped (issue 42, finding 6)", async () => {
    const forged = [
      pulledMessage({ id: "m-1\nm-9:1  DELIVRD  processed", status: "DELIVRD" }),
      // A status around which the table's lookup trims a line separator is final all the same.
      pulledMessage({ id: "m-2\r\u001b[2K\u0085", status: "UNDELIV\u2028" }),
      pulledMessage({ id: "m-3\u202e:1", status: "DELIVRD" }),
    ];
    rig.messages = forged;
    const run = await rig.reconcile(["--date", DAY, "--dry-run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      [
        "would send m-1\\u000am-9:1  DELIVRD  processed  DELIVRD",
        "would send m-2\\u000d\\u001b[2K\\u0085  UNDELIV\\u2028",
        "would send m-3\\u202e:1  DELIVRD",
        `sms/status date=${DAY}: pulled 3 in 1 page, 0 pending, 3 final (dry run: nothing sent)`,
        "",
      ].join("\n"),
    );
    // Sent to a page that is not the receiver, each failing: the failure lines too.
    const sent = await rig.reconcile([
      "--to",
      `${rig.origin}/page`,
      "--secret",
      SECRET,
      "--date",
      DAY,
    ]);
    expect(sent.code).toBe(1);
    expect(sent.stdout.split("\n")).toHaveLength(5);
    expect(sent.stdout).toContain("m-1\\u000am-9:1  DELIVRD  processed  DELIVRD  failed: HTTP 200");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for them
    expect(sent.stdout).not.toMatch(/[\r\u001b\u0085\u2028\u202e]/);
  });

  it("asks for one message by --id, and a group by --group", async () => {
    rig.messages = ids(2);
    const id = rig.messages[1]?.id as string;
    const one = await rig.reconcile(["--id", id, "--dry-run", "--json"]);
    expect(summaryOf(one)).toMatchObject({ query: { id }, pulled: 1, pages: 1 });
    const group = id.split(":")[0] as string;
    const byGroup = await rig.reconcile(["--group", group, "--dry-run", "--json"]);
    expect(summaryOf(byGroup)).toMatchObject({ query: { group_id: group }, pulled: 1 });
    expect(rig.api.requests.slice(-2)).toEqual([
      `GET /api/v2/sms/status?id=${encodeURIComponent(id)}&page=1`,
      `GET /api/v2/sms/status?group_id=${group}&page=1`,
    ]);
  });
});
