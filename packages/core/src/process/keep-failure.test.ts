// What the failure journal keeps: a report refused after authentication is `refused`, a
// handler that failed or timed out is `failed`, an unauthenticated request (or a refusal
// before the body, such as a wrong method) is never kept; the request is kept without its
// token; the reply waits for the journal but goes out when it fails.
import { describe, expect, it } from "vitest";
import { post } from "../../../../test/fixtures/receiver-requests.js";
import { SAMPLE_DLR, TOKEN } from "../../../../test/fixtures/samples.js";
import type { ReceiverRequest } from "../base/types.js";
import { createReceiver } from "../receiver/create-receiver.js";
import type { ReceiverOptions } from "../receiver/options.js";
import type { ReportkitError } from "../reply/errors.js";
import type { FailureJournal, JournalRecord } from "../store-kit/dedupe-store.js";
import { memoryDedupe } from "../store-kit/memory-dedupe.js";

/** A POST of `body` (JSON text of it unless it is text or bytes) to /webhooks?source=provider. */
function request(body: unknown, headers: Record<string, string> = {}): ReceiverRequest {
  const sent = typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body);
  return { ...post(sent, headers), url: "/webhooks?source=provider" };
}

function keptIn(): { journal: FailureJournal; kept: JournalRecord[] } {
  const kept: JournalRecord[] = [];
  return { kept, journal: { record: async (entry) => void kept.push(entry) } };
}

/** A receiver with the test secret and a journal that keeps what it is told in `kept`. */
function journaling(options: Partial<ReceiverOptions> = {}) {
  const { journal, kept } = keptIn();
  const receiver = createReceiver({
    secret: TOKEN,
    journal,
    logger: false,
    onDelivery: () => {},
    ...options,
  });
  return { receiver, kept };
}

describe("the failure journal: what is kept", () => {
  it("keeps a failed handler's report as `failed`, by its dedupe key, with the handler's error", async () => {
    const { receiver, kept } = journaling({
      onDelivery: () => {
        throw new Error('relation "messages" does not exist');
      },
    });
    const body = JSON.stringify({ ...SAMPLE_DLR, id: "j:1" });
    const reply = await receiver.handle(request(body));
    expect(reply.status).toBe(500);
    // The reply went out once the entry was kept.
    expect(kept).toHaveLength(1);
    const [entry] = kept as [JournalRecord];
    expect(entry.key).toBe("delivery:j:1:DELIVRD");
    expect(entry.kind).toBe("delivery");
    expect(entry.status).toBe("failed");
    expect(entry.error.code).toBe("handler_failed");
    expect(entry.error.message).toBe(
      'The report handler failed; the provider will retry this report. Cause: relation "messages" does not exist',
    );
    expect(entry.request).toEqual({
      method: "POST",
      url: "/webhooks?source=provider",
      contentType: "application/json",
      body,
      bodyEncoding: "utf8",
    });
    expect(JSON.stringify(entry)).not.toContain(TOKEN);
  });

  it("keeps a handler that timed out as `failed` (handler_timeout)", async () => {
    const { receiver, kept } = journaling({
      deadlineMs: 20,
      onDelivery: () => new Promise(() => {}),
    });
    expect((await receiver.handle(request({ ...SAMPLE_DLR, id: "j:2" }))).status).toBe(503);
    expect(kept.map((e) => [e.status, e.error.code])).toEqual([["failed", "handler_timeout"]]);
  });

  it("keeps a report refused after authentication as `refused`, by a hash of the request", async () => {
    const { receiver, kept } = journaling();
    const { status: _status, ...noStatus } = SAMPLE_DLR;
    const reply = await receiver.handle(request(noStatus));
    expect(reply.status).toBe(400);
    expect(kept).toHaveLength(1);
    const [entry] = kept as [JournalRecord];
    expect(entry.status).toBe("refused");
    expect(entry.key).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(entry.error.code).toBe(JSON.parse(reply.body).error.code);
    // The same body again is the same entry (its key); another body is another.
    await receiver.handle(request(noStatus));
    await receiver.handle(request({ ...noStatus, id: "other" }));
    expect(kept[1]?.key).toBe(entry.key);
    expect(kept[2]?.key).not.toBe(entry.key);
  });

  it("keeps a body that is not JSON as it came (invalid_json after authentication)", async () => {
    const { receiver, kept } = journaling();
    expect((await receiver.handle(request("{not json"))).status).toBe(400);
    expect(kept.map((e) => [e.status, e.request.body])).toEqual([["refused", "{not json"]]);
  });

  it("keeps bytes in base64", async () => {
    const { receiver, kept } = journaling();
    const bytes = new TextEncoder().encode('{"nothing":"here"}');
    // A charset other than UTF-8: core reads bytes, and keeps them as they came.
    const reply = await receiver.handle(
      request(bytes, { "content-type": "application/json; charset=iso-8859-1" }),
    );
    expect(reply.status).toBe(400);
    expect(kept).toHaveLength(1);
    const [entry] = kept as [JournalRecord];
    expect(entry.request.bodyEncoding).toBe("base64");
    expect(atob(entry.request.body)).toBe('{"nothing":"here"}');
  });

  it("never keeps an unauthenticated request, a wrong method, or a report processed", async () => {
    const { receiver, kept } = journaling();
    const { status: _status, ...noStatus } = SAMPLE_DLR;
    const wrongToken = await receiver.handle(request(noStatus, { authorization: "Bearer nope" }));
    const noToken = await receiver.handle({ ...request(noStatus), headers: {} });
    const get = await receiver.handle({ ...request(SAMPLE_DLR), method: "GET" });
    const ok = await receiver.handle(request({ ...SAMPLE_DLR, id: "j:3" }));
    expect([wrongToken.status, noToken.status, get.status, ok.status]).toEqual([
      401, 401, 405, 200,
    ]);
    expect(kept).toEqual([]);
  });

  it("uses the dedupe store's journal by default, and none with `journal: false`", async () => {
    const { journal, kept } = keptIn();
    const store = Object.assign(memoryDedupe(), { journal });
    const failing = () => {
      throw new Error("down");
    };
    const byDefault = createReceiver({
      secret: TOKEN,
      dedupe: store,
      logger: false,
      onDelivery: failing,
    });
    await byDefault.handle(request({ ...SAMPLE_DLR, id: "j:4" }));
    expect(kept).toHaveLength(1);
    const off = createReceiver({
      secret: TOKEN,
      dedupe: store,
      journal: false,
      logger: false,
      onDelivery: failing,
    });
    await off.handle(request({ ...SAMPLE_DLR, id: "j:5" }));
    expect(kept).toHaveLength(1);
  });

  it("still replies when the journal cannot keep the report, and logs why", async () => {
    const errors: ReportkitError[] = [];
    const logged: string[] = [];
    const receiver = createReceiver({
      secret: TOKEN,
      logger: { warn: (line) => void logged.push(line), error: (line) => void logged.push(line) },
      journal: { record: () => Promise.reject(new Error("journal down")) },
      onError: (error) => void errors.push(error),
      onDelivery: () => {
        throw new Error("handler down");
      },
    });
    const reply = await receiver.handle(request({ ...SAMPLE_DLR, id: "j:6" }));
    expect(reply.status).toBe(500);
    expect(errors.map((e) => e.code)).toEqual(["handler_failed"]);
    expect(logged.filter((line) => line.includes("could not keep this report"))).toHaveLength(1);
  });
});
