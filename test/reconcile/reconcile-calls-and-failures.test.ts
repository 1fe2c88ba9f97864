// `reportkit reconcile` (the CLI's main, in process) when the provider's API fails (unreachable,
// a page failing after reports were sent), and for calls from the call-status API. A real
// Express receiver over HTTP and the paging stand-in of the provider's API (rig.ts).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { PulledCall } from "../support/pull-api-server.js";
import { DAY, ids, SECRET, summaryOf, useRig } from "./rig.js";

const rig = useRig();

describe("when the provider's API fails", () => {
  it("an unreachable API is exit 1 with a clear message, and nothing is sent", async () => {
    rig.messages = ids(1);
    // A port that was listening a moment ago: nothing answers there now.
    const gone = http.createServer();
    const closed = await new Promise<string>((resolve) =>
      gone.listen(0, "127.0.0.1", () =>
        resolve(`http://127.0.0.1:${(gone.address() as AddressInfo).port}`),
      ),
    );
    await new Promise((resolve) => gone.close(resolve));
    const run = await rig.reconcile(
      ["--to", `${rig.origin}/webhooks`, "--secret", SECRET, "--date", DAY],
      {
        REPORTKIT_BASE_URL: `${closed}/api/v2/`,
      },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^reportkit: GET sms\/status failed: could not reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\) \(after 3 attempts\)\.\n$/,
    );
    expect(run.stdout).toBe("");
    expect(rig.deliveries).toEqual([]);
  });

  it("a page that fails after reports were sent: what was sent is summed up, exit 1, run again", async () => {
    rig.messages = ids(150);
    // Page 1 answers, then page 2 fails (a 500 is not retried).
    rig.api.failPage(2, 500);
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
    expect(summaryOf(run)).toMatchObject({
      complete: false,
      pages: 2,
      pulled: 100,
      processed: 100,
    });
    expect(run.stderr).toBe(
      "reportkit: GET sms/status failed with 500 Internal Server Error: stand-in failure 500. The pull stopped after 2 pages; 100 reports were sent. Run it again to finish: what was already recorded comes back as a duplicate.\n",
    );
    const again = await rig.reconcile([
      "--to",
      `${rig.origin}/webhooks`,
      "--secret",
      SECRET,
      "--date",
      DAY,
      "--json",
    ]);
    expect(summaryOf(again)).toMatchObject({ complete: true, processed: 50, duplicate: 100 });
  });
});

/** A call of the day as the call-status API lists it, started 08:27:26, ended at `end` ("": not yet). */
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

describe("calls, from the call-status API", () => {
  it("sends each ended call as the call report, deduplicated against the push; others pending", async () => {
    const answered = crypto.randomUUID();
    const busy = crypto.randomUUID();
    rig.calls = [
      call(answered, "ANSWER", `${DAY} 08:27:49`),
      call(busy, "BUSY", `${DAY} 08:27:26`),
      call(crypto.randomUUID(), "ANSWER", ""),
      call(crypto.randomUUID(), "RINGING", ""),
    ];
    // The answered call's report was pushed before (the provider's sample shape, numbers).
    const pushed = await fetch(`${rig.origin}/webhooks`, {
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
    const run = await rig.reconcile([
      "--calls",
      "--to",
      `${rig.origin}/webhooks`,
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
    expect(rig.api.requests.at(-1)).toBe(`GET /api/v2/outgoing/callstatus?date=${DAY}&page=1`);
    const [, reconciled] = rig.callReports;
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

  it("sends the IVR's statuses too: RECEIVED and MISSED, and COMPLETED once it has ended", async () => {
    const id = () => crypto.randomUUID();
    rig.calls = [
      call(id(), "COMPLETED", `${DAY} 08:28:26`),
      call(id(), "RECEIVED", `${DAY} 08:27:41`),
      call(id(), "MISSED", `${DAY} 08:28:01`),
      call(id(), "COMPLETED", ""),
    ];
    const run = await rig.reconcileDay("--calls");
    expect(run.code, run.stderr).toBe(0);
    expect(summaryOf(run)).toMatchObject({ pulled: 4, pending: 1, final: 3, processed: 3 });
    const got = rig.callReports.map((r) => [r.status, r.final, r.outcome, r.warnings]);
    expect(got.sort()).toEqual([
      ["COMPLETED", true, "answered", []],
      ["MISSED", true, "unanswered", []],
      ["RECEIVED", true, "unanswered", []],
    ]);
  });

  it("refuses --group with --calls before asking anything", async () => {
    const count = rig.api.requests.length;
    const run = await rig.reconcile(["--calls", "--group", "g", "--dry-run"]);
    expect(run).toMatchObject({
      code: 1,
      stderr: "reportkit: the call-status API has no group filter: give date, id, cid or mobile.\n",
    });
    expect(rig.api.requests.length).toBe(count);
  });
});
