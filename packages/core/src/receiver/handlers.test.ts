import { describe, expect, it } from "vitest";
import { postJson as post } from "../../../../test/fixtures/receiver-requests.js";
import { SAMPLE_CALL, SAMPLE_DLR, TOKEN } from "../../../../test/fixtures/samples.js";
import type { ReportkitError } from "../reply/errors.js";
import type { Report } from "../report/schemas.js";
import { createReceiver } from "./create-receiver.js";

const silent = { warn() {}, error() {} };

describe("handlers attached after construction", () => {
  it("createReceiver() with no options works once handlers are attached, chained", async () => {
    const seen: Report[] = [];
    const receiver = createReceiver({ secret: TOKEN })
      .onDelivery((report) => void seen.push(report))
      .onCall((report) => void seen.push(report));
    expect((await receiver.handle(post(SAMPLE_DLR))).status).toBe(200);
    expect((await receiver.handle(post(SAMPLE_CALL))).status).toBe(200);
    expect(seen.map((r) => r.type)).toEqual(["delivery", "call"]);
  });

  it("answers 503 no_handler with Retry-After until a handler is attached, and logs it once", async () => {
    const warnings: string[] = [];
    const receiver = createReceiver({
      secret: TOKEN,
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
    expect(() => createReceiver({ secret: TOKEN, onDelivery: fn }).onDelivery(fn)).toThrow(
      /already has an `onDelivery` handler/,
    );
    const receiver = createReceiver({ secret: TOKEN }).onCall(fn).onError(fn);
    expect(() => receiver.onCall(fn)).toThrow(/already has an `onCall` handler/);
    expect(() => receiver.onError(fn)).toThrow(/already has an `onError` handler/);
    expect(() => receiver.onDelivery("no" as never)).toThrow(/takes a function, got string/);
  });

  it("refuses the handler a composed template can never call", () => {
    const receiver = createReceiver({
      secret: TOKEN,
      composed: { type: "call", url: "/c?s={{status}}&m={{mid}}" },
    });
    expect(() => receiver.onDelivery((() => {}) as never)).toThrow(
      /sends call reports.*attach `onCall`/,
    );
    expect(() => receiver.onCall(() => {})).not.toThrow();
  });

  it("an attached onError observes failures; the log goes on beside it until logger: false", async () => {
    const observed: ReportkitError[] = [];
    const logged: string[] = [];
    const logger = {
      warn: (m: string) => void logged.push(m),
      error: (m: string) => void logged.push(m),
    };
    const fail = () => {
      throw new Error("boom");
    };
    const logging = createReceiver({ secret: TOKEN, logger })
      .onDelivery(fail)
      .onError((error) => void observed.push(error));
    expect((await logging.handle(post(SAMPLE_DLR))).status).toBe(500);
    expect(observed.map((e) => e.code)).toEqual(["handler_failed"]);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^reportkit: handler_failed: .*cause: Error: boom/s);

    const quiet = createReceiver({ secret: TOKEN, logger: false })
      .onDelivery(fail)
      .onError((error) => void observed.push(error));
    const original = console.error;
    console.error = (m: string) => void logged.push(m);
    try {
      expect((await quiet.handle(post(SAMPLE_DLR))).status).toBe(500);
    } finally {
      console.error = original;
    }
    expect(observed).toHaveLength(2);
    expect(logged).toHaveLength(1);
  });
});
