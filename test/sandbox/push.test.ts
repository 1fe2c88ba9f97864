// The pusher as the provider behaves (provider-interface.md 6 and 8, field-notes.md "Delivery
// behaviour"): 200/202 succeed; anything else, a timeout or a refused connection is retried
// `retries` times, `retryIntervalMs` apart, then dropped. Every case runs with the reports in
// both shapes the sandbox pushes (documented, complete).
import { type Client, createClient } from "@reportkit/client";
import { createSandbox, PAYLOAD_STYLES, type PushAttempt, type Sandbox } from "@reportkit/sandbox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pushedBody } from "./payloads.js";
import { type Recorder, refusedUrl, startRecorder } from "./servers.js";

const TOKEN = "sandbox-api-token";
const INTERVAL = 20;
// Long enough that a receiver which answers is never timed out on a loaded machine (the success
// and retry cases count attempts exactly); the timeout case sets a short one of its own.
const PUSH_TIMEOUT_MS = 10_000;

let sandbox: Sandbox;
let client: Client;
let recorder: Recorder | undefined;
let seen: PushAttempt[];

afterEach(async () => {
  await sandbox.close();
  await recorder?.close();
  recorder = undefined;
});

async function hookTo(
  uri: string,
  extra: { secret?: string; token?: string; status?: 0 | 1 } = {},
) {
  return client.webhooks.create({ name: "test", uri, ...extra });
}

describe.each(PAYLOAD_STYLES)("payloads: %s", (payloads) => {
  beforeEach(async () => {
    seen = [];
    sandbox = await createSandbox({
      token: TOKEN,
      payloads,
      retryIntervalMs: INTERVAL,
      timeoutMs: PUSH_TIMEOUT_MS,
      onAttempt: (a) => seen.push(a),
    });
    client = createClient({ baseUrl: sandbox.baseUrl, token: TOKEN });
  });

  describe("success", () => {
    it.each([200, 202])("a %i is delivered in one attempt", async (status) => {
      recorder = await startRecorder(() => status);
      const hook = await hookTo(`${recorder.url}/reports`);
      const sent = sandbox.sendSms({ webhookId: hook.id });
      expect(await sent.outcome).toBe("delivered");
      expect(recorder.requests).toHaveLength(1);
      expect(sandbox.attempts()).toEqual([
        expect.objectContaining({
          reportId: sent.report.id,
          reportType: "delivery",
          webhookId: hook.id,
          method: "POST",
          url: `${recorder.url}/reports`,
          attempt: 1,
          maxAttempts: 4,
          statusCode: status,
          error: null,
          outcome: "delivered",
          nextAttemptAt: null,
        }),
      ]);
      expect(seen).toEqual(sandbox.attempts());
    });

    it("recovers when a retry succeeds", async () => {
      recorder = await startRecorder((n) => (n === 0 ? 503 : 200));
      const hook = await hookTo(`${recorder.url}/reports`);
      expect(await sandbox.makeCall({ webhookId: hook.id }).outcome).toBe("delivered");
      expect(sandbox.attempts().map((a) => [a.attempt, a.statusCode, a.outcome])).toEqual([
        [1, 503, "retrying"],
        [2, 200, "delivered"],
      ]);
    });
  });

  describe("retries, then drop", () => {
    it.each([500, 201, 204, 301, 400, 401, 404, 503])(
      "a %i is retried 3 times (1 + 3 attempts) with the same body, then dropped",
      async (status) => {
        recorder = await startRecorder(() => status);
        const hook = await hookTo(`${recorder.url}/reports`);
        expect(await sandbox.sendSms({ webhookId: hook.id }).outcome).toBe("dropped");
        expect(recorder.requests).toHaveLength(4);
        expect(new Set(recorder.requests.map((r) => r.text)).size).toBe(1);
        expect(sandbox.attempts().map((a) => [a.attempt, a.statusCode, a.outcome])).toEqual([
          [1, status, "retrying"],
          [2, status, "retrying"],
          [3, status, "retrying"],
          [4, status, "dropped"],
        ]);
      },
    );

    it("retries a receiver that does not answer within the timeout", async () => {
      await sandbox.close();
      sandbox = await createSandbox({
        token: TOKEN,
        payloads,
        retryIntervalMs: INTERVAL,
        timeoutMs: 150,
      });
      client = createClient({ baseUrl: sandbox.baseUrl, token: TOKEN });
      recorder = await startRecorder(() => "hang");
      const hook = await hookTo(`${recorder.url}/reports`);
      expect(await sandbox.sendSms({ webhookId: hook.id }).outcome).toBe("dropped");
      expect(recorder.requests).toHaveLength(4);
      const attempts = sandbox.attempts();
      expect(attempts.map((a) => a.outcome)).toEqual([
        "retrying",
        "retrying",
        "retrying",
        "dropped",
      ]);
      expect(attempts.map((a) => [a.statusCode, a.error])).toEqual(
        Array.from({ length: 4 }, () => [null, "timeout: no response within 150 ms"]),
      );
    });

    it("retries a refused connection", async () => {
      const hook = await hookTo(await refusedUrl());
      expect(await sandbox.makeCall({ webhookId: hook.id }).outcome).toBe("dropped");
      expect(sandbox.attempts().map((a) => [a.attempt, a.error, a.outcome])).toEqual([
        [1, "connection refused (ECONNREFUSED)", "retrying"],
        [2, "connection refused (ECONNREFUSED)", "retrying"],
        [3, "connection refused (ECONNREFUSED)", "retrying"],
        [4, "connection refused (ECONNREFUSED)", "dropped"],
      ]);
    });

    it("waits retryIntervalMs between attempts and says when the next one is due", async () => {
      recorder = await startRecorder(() => 500);
      const hook = await hookTo(`${recorder.url}/reports`);
      expect(await sandbox.sendSms({ webhookId: hook.id }).outcome).toBe("dropped");
      const attempts = sandbox.attempts();
      // Four attempts, so three gaps checked below.
      expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
      expect(attempts.at(-1)?.nextAttemptAt).toBeNull();
      for (let i = 1; i < attempts.length; i++) {
        const gap =
          (attempts[i] as PushAttempt).at.getTime() - (attempts[i - 1] as PushAttempt).at.getTime();
        // Timers may fire a millisecond early; the gap is never shorter than the interval otherwise.
        expect(gap).toBeGreaterThanOrEqual(INTERVAL - 2);
        expect((attempts[i - 1] as PushAttempt).nextAttemptAt).toBeInstanceOf(Date);
      }
    });

    it("honours the retries option", async () => {
      await sandbox.close();
      sandbox = await createSandbox({
        token: TOKEN,
        payloads,
        retries: 1,
        retryIntervalMs: INTERVAL,
      });
      client = createClient({ baseUrl: sandbox.baseUrl, token: TOKEN });
      recorder = await startRecorder(() => 500);
      const hook = await hookTo(`${recorder.url}/reports`);
      expect(await sandbox.sendSms({ webhookId: hook.id }).outcome).toBe("dropped");
      expect(recorder.requests).toHaveLength(2);
      expect(sandbox.attempts().map((a) => `${a.attempt}/${a.maxAttempts}`)).toEqual([
        "1/2",
        "2/2",
      ]);
    });

    it("close() cancels a scheduled retry", async () => {
      await sandbox.close();
      sandbox = await createSandbox({ token: TOKEN, payloads, retryIntervalMs: 60_000 });
      client = createClient({ baseUrl: sandbox.baseUrl, token: TOKEN });
      recorder = await startRecorder(() => 500);
      const hook = await hookTo(`${recorder.url}/reports`);
      const sent = sandbox.sendSms({ webhookId: hook.id });
      await expect.poll(() => sandbox.attempts().length, { timeout: 15_000 }).toBe(1);
      await sandbox.close();
      expect(await sent.outcome).toBe("cancelled");
      expect(recorder.requests).toHaveLength(1);
    });

    it("close() during an attempt cancels it without logging a drop", async () => {
      recorder = await startRecorder(() => "hang");
      const hook = await hookTo(`${recorder.url}/reports`);
      const sent = sandbox.sendSms({ webhookId: hook.id });
      await expect.poll(() => recorder?.requests.length, { timeout: 15_000 }).toBe(1);
      await sandbox.close();
      expect(await sent.outcome).toBe("cancelled");
      expect(sandbox.attempts()).toEqual([]);
    });

    it.each([
      [
        "made inactive",
        (id: string) =>
          client.webhooks.update(id, { name: "t", uri: "https://a.example/", status: 0 }),
        /made inactive \(status 0\)/,
      ],
      ["deleted", (id: string) => client.webhooks.delete(id), /deleted/],
    ] as const)(
      "does not retry once the webhook is %s, and logs why",
      async (_, change, reason) => {
        // The receiver changes the webhook before it answers the first attempt's 500, so the
        // change is in place when the retry is due, however slow the machine.
        let hookId = "";
        recorder = await startRecorder(async (n) => {
          if (n === 0) await change(hookId);
          return 500;
        });
        const hook = await hookTo(`${recorder.url}/reports`);
        hookId = hook.id;
        const sent = sandbox.sendSms({ webhookId: hook.id });
        expect(await sent.outcome).toBe("skipped");
        expect(recorder.requests).toHaveLength(1);
        expect(sandbox.attempts().map((a) => [a.attempt, a.outcome])).toEqual([
          [1, "retrying"],
          [2, "skipped"],
        ]);
        expect(sandbox.attempts()[1]?.error).toMatch(reason);
      },
    );
  });

  describe("what is pushed", () => {
    it("POSTs the DLR as JSON with the webhook's secret as bearer, never its token", async () => {
      recorder = await startRecorder();
      const hook = await hookTo(`${recorder.url}/dlr?source=sandbox`, {
        secret: "the-secret",
        token: "the-token",
      });
      // Created with a token, the webhook was sent its verification first (the recorder does
      // not answer it: not verified, and pushed all the same).
      expect(recorder.requests.map((r) => r.url)).toEqual(["/dlr?source=sandbox&token=the-token"]);
      const sent = sandbox.sendSms({ webhookId: hook.id, mobile: "14155550100", custom: "o-1" });
      await sent.outcome;
      const request = recorder.requests[1];
      expect(request?.method).toBe("POST");
      expect(request?.url).toBe("/dlr?source=sandbox");
      expect(request?.headers["content-type"]).toBe("application/json");
      expect(request?.headers.authorization).toBe("Bearer the-secret");
      expect(request?.headers["content-length"]).toBe(String(request?.body.length));
      expect(pushedBody(request?.text ?? "", payloads)).toEqual(sent.report);
      expect(sent.report).toMatchObject({
        mobile: "14155550100",
        custom: "o-1",
        status: "DELIVRD",
        deliv_time: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      });
      // The documentation's sample has no unix fields; complete payloads have all three.
      const unix = ["deliv_at", "sent_at", "submit_at"].filter((field) => field in sent.report);
      expect(unix).toEqual(payloads === "complete" ? ["deliv_at", "sent_at", "submit_at"] : []);
    });

    it.each(["UNDELIV", "EXPIRED", "ENROUTE"])(
      "a %s DLR has a delivery time only in complete payloads",
      async (status) => {
        recorder = await startRecorder();
        const hook = await hookTo(`${recorder.url}/dlr`);
        const sent = sandbox.sendSms({ webhookId: hook.id, status });
        await sent.outcome;
        const pushed = pushedBody(recorder.requests[0]?.text ?? "", payloads);
        expect(pushed).toMatchObject({ status, sent_time: sent.report.sent_time });
        expect("deliv_time" in pushed).toBe(payloads === "complete");
        expect("deliv_at" in pushed).toBe(payloads === "complete");
      },
    );

    it("sends no Authorization for a webhook without a secret, even with a token", async () => {
      recorder = await startRecorder();
      const withSecret = await hookTo(`${recorder.url}/a`, { secret: "only-secret" });
      const bare = await hookTo(`${recorder.url}/b`);
      await sandbox.makeCall({ webhookId: withSecret.id }).outcome;
      await sandbox.makeCall({ webhookId: bare.id }).outcome;
      expect(recorder.requests[0]?.headers.authorization).toBe("Bearer only-secret");
      expect(recorder.requests[1]?.headers).not.toHaveProperty("authorization");
    });

    it("POSTs the call report with bare-number phone numbers", async () => {
      recorder = await startRecorder();
      const hook = await hookTo(`${recorder.url}/calls`);
      const sent = sandbox.makeCall({ webhookId: hook.id, to: "919812345678", status: "BUSY" });
      await sent.outcome;
      const body = recorder.requests[0]?.text ?? "";
      // Bare JSON numbers, as in the documentation's sample; duration a digit string.
      expect(body).toMatch(/"to": ?919812345678,/);
      expect(body).toMatch(/"flow_id": ?4521,/);
      const pushed = pushedBody(body, payloads);
      expect(pushed).toEqual(sent.report);
      expect(pushed).toMatchObject({
        bridge: 918068281234,
        from: 918068281235,
        status: "BUSY",
        duration: "0",
        source: "OBD",
      });
      // The documentation's call sample has no webhook_id.
      expect(pushed.webhook_id).toBe(payloads === "complete" ? hook.id : undefined);
    });

    it("does not push to an inactive webhook, and logs why", async () => {
      recorder = await startRecorder();
      const hook = await hookTo(`${recorder.url}/reports`, { status: 0 });
      const sent = sandbox.sendSms({ webhookId: hook.id });
      expect(sent.pushed).toBe(false);
      expect(await sent.outcome).toBe("skipped");
      expect(recorder.requests).toHaveLength(0);
      expect(sandbox.attempts()).toEqual([
        expect.objectContaining({
          attempt: 0,
          outcome: "skipped",
          error: expect.stringMatching(/inactive \(status 0\)/),
        }),
      ]);
    });

    it("settled() waits for every report, retries included", async () => {
      recorder = await startRecorder((n) => (n < 2 ? 500 : 200));
      const hook = await hookTo(`${recorder.url}/reports`);
      sandbox.sendSms({ webhookId: hook.id });
      sandbox.makeCall({ webhookId: hook.id });
      await sandbox.settled();
      expect(sandbox.attempts().filter((a) => a.outcome === "delivered")).toHaveLength(2);
      expect(recorder.requests).toHaveLength(4);
    });
  });
});
