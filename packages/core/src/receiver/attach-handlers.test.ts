import { describe, expect, it } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR, TOKEN } from "../../../../test/fixtures/samples.js";
import type { ReportkitError } from "../reply/errors.js";
import type { Report } from "../report/schemas.js";
import { createReceiver } from "./create-receiver.js";
import { takesReports } from "./receiver-options.js";
import type { ReceiverRequest } from "./types.js";

function post(payload: object): ReceiverRequest {
  return {
    method: "POST",
    url: "/webhooks",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(payload),
  };
}

const silent = { warn() {}, error() {} };

describe("handlers attached after construction", () => {
  it("createReceiver() with no options works once handlers are attached, chained", async () => {
    const seen: Report[] = [];
    const receiver = createReceiver({ token: TOKEN })
      .onDelivery((report) => void seen.push(report))
      .onCall((report) => void seen.push(report));
    expect((await receiver.handle(post(SAMPLE_DLR))).status).toBe(200);
    expect((await receiver.handle(post(SAMPLE_CALL))).status).toBe(200);
    expect(seen.map((r) => r.type)).toEqual(["delivery", "call"]);
  });

  it("answers 503 no_handler with Retry-After until a handler is attached, and logs it once", async () => {
    const warnings: string[] = [];
    const receiver = createReceiver({
      token: TOKEN,
      logger: { ...silent, warn: (m) => void warnings.push(m) },
    });
    const before = [
      await receiver.handle(post(SAMPLE_DLR)),
      await receiver.handle(post(SAMPLE_CALL)),
    ];
    expect(before.map((r) => r.status)).toEqual([503, 503]);
    expect(before[0]?.headers["retry-after"]).toMatch(/^\d+$/);
    expect(JSON.parse(before[0]?.body ?? "")).toMatchObject({
      ok: false,
      error: { code: "no_handler" },
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/no_handler .*onDelivery/);

    const seen: string[] = [];
    receiver.onDelivery((report) => void seen.push(report.id));
    expect((await receiver.handle(post(SAMPLE_DLR))).status).toBe(200);
    // A kind without a handler, once another kind has one, is acknowledged as before.
    expect((await receiver.handle(post(SAMPLE_CALL))).status).toBe(200);
    expect(seen).toEqual([SAMPLE_DLR.id]);
  });

  it("takes one handler per kind, whether given in options or attached", () => {
    const fn = () => {};
    expect(() => createReceiver({ token: TOKEN, onDelivery: fn }).onDelivery(fn)).toThrow(
      /already has an `onDelivery` handler/,
    );
    const receiver = createReceiver({ token: TOKEN }).onCall(fn).onError(fn);
    expect(() => receiver.onCall(fn)).toThrow(/already has an `onCall` handler/);
    expect(() => receiver.onError(fn)).toThrow(/already has an `onError` handler/);
    expect(() => receiver.onDelivery("no" as never)).toThrow(/takes a function, got string/);
  });

  it("refuses the handler a composed template can never call", () => {
    const receiver = createReceiver({
      token: TOKEN,
      composed: { type: "call", url: "/c?s={{status}}&m={{mid}}" },
    });
    expect(() => receiver.onDelivery((() => {}) as never)).toThrow(
      /sends call reports.*attach `onCall`/,
    );
    expect(() => receiver.onCall(() => {})).not.toThrow();
  });

  it("an attached onError observes failures instead of the default log", async () => {
    const logged: string[] = [];
    const observed: ReportkitError[] = [];
    const receiver = createReceiver({ token: TOKEN, logger: undefined })
      .onDelivery(() => {
        throw new Error("boom");
      })
      .onError((error) => void observed.push(error));
    const original = console.error;
    console.error = (m: string) => void logged.push(m);
    try {
      expect((await receiver.handle(post(SAMPLE_DLR))).status).toBe(500);
    } finally {
      console.error = original;
    }
    expect(observed.map((e) => e.code)).toEqual(["handler_failed"]);
    expect(logged).toEqual([]);
  });
});

describe("queue mode", () => {
  function queueOf(add: (report: Report, key: string | undefined) => Promise<void>) {
    return { enqueue: add };
  }

  it("answers 202 queued once the queue took the report, with its dedupe key", async () => {
    const added: [string, string | undefined][] = [];
    let settled = false;
    const receiver = createReceiver({
      token: TOKEN,
      queue: queueOf(async (report, key) => {
        await new Promise((r) => setTimeout(r, 20));
        added.push([report.type, key]);
        settled = true;
      }),
    });
    const reply = await receiver.handle(post(SAMPLE_DLR));
    expect(settled).toBe(true);
    expect(reply.status).toBe(202);
    expect(JSON.parse(reply.body)).toEqual({ ok: true, queued: true });
    expect(added).toEqual([["delivery", `delivery:${SAMPLE_DLR.id}:${SAMPLE_DLR.status}`]]);
  });

  it("answers 503 queue_unavailable when the queue fails or does not answer within deadlineMs", async () => {
    const errors: ReportkitError[] = [];
    const failing = createReceiver({
      token: TOKEN,
      queue: queueOf(() => Promise.reject(new Error("Connection is closed."))),
      onError: (e) => void errors.push(e),
    });
    const hanging = createReceiver({
      token: TOKEN,
      deadlineMs: 50,
      queue: queueOf(() => new Promise(() => {})),
      onError: (e) => void errors.push(e),
    });
    for (const receiver of [failing, hanging]) {
      const reply = await receiver.handle(post(SAMPLE_DLR));
      expect(reply.status).toBe(503);
      expect(JSON.parse(reply.body)).toMatchObject({ error: { code: "queue_unavailable" } });
    }
    expect(errors.map((e) => (e.cause as Error).message)).toEqual([
      "Connection is closed.",
      "no answer within 50 ms",
    ]);
  });

  it("takes no handler: neither in options nor attached", () => {
    const queue = queueOf(async () => {});
    expect(() => createReceiver({ token: TOKEN, queue }).onCall(() => {})).toThrow(
      /queue mode.*createWorker/,
    );
  });
});

describe("what adapters read of core", () => {
  it("core's fixed replies are built once and frozen, so no adapter can change them", async () => {
    const receiver = createReceiver({ token: TOKEN, onDelivery: () => {} });
    const first = await receiver.handle(post(SAMPLE_DLR));
    const again = await receiver.handle(post(SAMPLE_DLR));
    const next = await receiver.handle(post({ ...SAMPLE_DLR, id: "another" }));
    for (const reply of [first, again]) expect(Object.isFrozen(reply)).toBe(true);
    expect(next).toBe(first);
    expect(JSON.parse(again.body)).toEqual({ ok: true, duplicate: true });
    const refused = await receiver.handle(post({ neither: "report" }));
    expect(refused.status).toBe(400);
    expect(Object.isFrozen(refused)).toBe(false);
  });

  it("takesReports: a handler or a queue, in the options", () => {
    expect(takesReports({})).toBe(false);
    expect(takesReports({ onCall: () => {} })).toBe(true);
    expect(takesReports({ queue: { enqueue: async () => {} } })).toBe(true);
  });
});
