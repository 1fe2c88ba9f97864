import { describe, expect, it } from "vitest";
import { AUTH, errorOf, post, setup } from "../../../../test/fixtures/receiver-requests.js";
import { SAMPLE_DLR, SAMPLE_DLR_TEXT } from "../../../../test/fixtures/samples.js";
import type { ReceiverRequest } from "../base/types.js";

// Reading a body in every form an adapter may hand it, under body.maxBytes and body.timeoutMs.
describe("readBody, through the receiver", () => {
  it("413 for a body over maxBodyBytes, as text, bytes, a declared length or a stream", async () => {
    const { receiver } = setup({ body: { maxBytes: 100 } });
    const big = JSON.stringify({ ...SAMPLE_DLR, custom: "x".repeat(200) });
    const bytes = new TextEncoder().encode(big);
    const stream = new Blob([bytes]).stream();
    const declared = post(new Blob([bytes]).stream(), { "content-length": "5000" });
    for (const request of [post(big), post(bytes), post(stream), declared]) {
      const res = await receiver.handle(request);
      expect(res.status).toBe(413);
      expect(errorOf(res.body).code).toBe("payload_too_large");
    }
  });

  it("reads a web Request whole when its length is declared, else streams it (fetch)", async () => {
    const { receiver, deliveries } = setup();
    const utf8 = new TextEncoder().encode(SAMPLE_DLR_TEXT);
    const custom = JSON.stringify({ ...SAMPLE_DLR, custom: "caf\u00e9" });
    // ISO-8859-1 bytes: é is one byte, 0xE9, which only a bytes read decodes right.
    const latin1 = Uint8Array.from(custom, (c) => c.charCodeAt(0));
    const requests = [
      [utf8, "application/json", true],
      [latin1, "application/json; charset=ISO-8859-1", true],
      [utf8, "application/json", false],
    ] as const;
    for (const [body, type, declared] of requests) {
      const headers: Record<string, string> = { ...AUTH, "content-type": type };
      if (declared) headers["content-length"] = String(body.byteLength);
      const web = new Request("http://x/webhooks", {
        method: "POST",
        headers,
        body: declared ? body : new Blob([body]).stream(),
        duplex: "half",
      } as RequestInit);
      expect((await receiver.fetch(web)).status).toBe(200);
    }
    expect(deliveries.map((d) => d.custom)).toEqual(["order-1234", "café", "order-1234"]);
  });

  it("400 body_read_failed for a web body already consumed, with a declared length or without", async () => {
    const { receiver, errors } = setup();
    for (const declared of [true, false]) {
      const headers: Record<string, string> = { ...AUTH, "content-type": "application/json" };
      if (declared) headers["content-length"] = String(SAMPLE_DLR_TEXT.length);
      const used = new Request("http://x/webhooks", {
        method: "POST",
        headers,
        body: SAMPLE_DLR_TEXT,
      });
      await used.text();
      const res = await receiver.fetch(used);
      // Before: 400 with a Content-Length, 500 internal_error without (getReader() threw).
      expect(res.status).toBe(400);
    }
    expect(errors.map((e) => e.code)).toEqual(["body_read_failed", "body_read_failed"]);
  });

  it("counts UTF-8 bytes, not characters, against the limit", async () => {
    // The limit sits 250 above the sample: 100 "é" (200 bytes) fit, 150 (300 bytes) do not,
    // though both are fewer than 250 characters.
    const limit = JSON.stringify({ ...SAMPLE_DLR, custom: "" }).length + 250;
    const { receiver } = setup({ body: { maxBytes: limit } });
    const body = JSON.stringify({ ...SAMPLE_DLR, custom: "é".repeat(100) });
    expect(body.length).toBeLessThan(limit);
    expect((await receiver.handle(post(body))).status).toBe(200);
    const over = JSON.stringify({ ...SAMPLE_DLR, custom: "é".repeat(150) });
    expect(over.length).toBeLessThan(limit);
    expect((await receiver.handle(post(over))).status).toBe(413);
  });

  it("accepts every body shape an adapter may have", async () => {
    const { receiver, deliveries } = setup();
    const text = JSON.stringify(SAMPLE_DLR);
    const bytes = new TextEncoder().encode(text);
    async function* chunks() {
      yield bytes.slice(0, 10);
      yield bytes.slice(10);
    }
    const bodies: ReceiverRequest["body"][] = [text, bytes, new Blob([bytes]).stream(), chunks()];
    for (const body of bodies) expect((await receiver.handle(post(body))).status).toBe(200);
    expect(deliveries.map((d) => d.id)).toEqual(Array(4).fill(SAMPLE_DLR.id));
  });

  it("400 body_read_failed when the stream errors mid-way", async () => {
    const { receiver, deliveries } = setup();
    async function* broken() {
      yield new TextEncoder().encode('{"id":');
      throw new Error("ECONNRESET");
    }
    const res = await receiver.handle(post(broken()));
    expect(res.status).toBe(400);
    expect(errorOf(res.body).code).toBe("body_read_failed");
    expect(deliveries).toHaveLength(0);
  });
});
