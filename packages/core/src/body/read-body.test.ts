import { describe, expect, it } from "vitest";
import { AUTH, errorOf, post, setup } from "../../../../test/fixtures/receiver-requests.js";
import { SAMPLE_DLR, SAMPLE_DLR_TEXT } from "../../../../test/fixtures/samples.js";
import type { ReceiverRequest } from "../receiver/types.js";

// Reading a body in every form an adapter may hold it, under maxBodyBytes and bodyTimeoutMs.
describe("readBody, through the receiver", () => {
  it("413 for a body over maxBodyBytes, as text, bytes, a declared length or a stream", async () => {
    const { receiver } = setup({ maxBodyBytes: 100 });
    const big = JSON.stringify({ ...SAMPLE_DLR, custom: "x".repeat(200) });
    const bytes = new TextEncoder().encode(big);
    const stream = new Blob([bytes]).stream();
    const declared = post(undefined, { "content-length": "5000" });
    for (const request of [post(big), post(bytes), post(stream), declared]) {
      const res = await receiver.handle(request);
      expect(res.status).toBe(413);
      expect(errorOf(res.body).code).toBe("payload_too_large");
    }
  });

  it("reads a web Request passed as the body whole when its length is declared, else streams it", async () => {
    const { receiver, deliveries } = setup();
    const latin1 = new Uint8Array([...new TextEncoder().encode(SAMPLE_DLR_TEXT)]);
    const custom = JSON.stringify({ ...SAMPLE_DLR, custom: "caf\u00e9" });
    // ISO-8859-1 bytes: é is one byte, 0xE9, which only a bytes read decodes right.
    const bytes = Uint8Array.from(custom, (c) => c.charCodeAt(0));
    const requests = [
      [latin1, "application/json", true],
      [bytes, "application/json; charset=ISO-8859-1", true],
      [latin1, "application/json", false],
    ] as const;
    for (const [body, type, declared] of requests) {
      const web = new Request("http://x/webhooks", { method: "POST", body });
      const headers = { ...AUTH, "content-type": type };
      const res = await receiver.handle({
        method: "POST",
        url: "/webhooks",
        headers: declared ? { ...headers, "content-length": String(body.byteLength) } : headers,
        body: web,
      });
      expect(res.status).toBe(200);
    }
    expect(deliveries.map((d) => d.custom)).toEqual(["order-1234", "café", "order-1234"]);
  });

  it("400 body_read_failed when a web Request's body cannot be read", async () => {
    const { receiver, errors } = setup();
    const failing = {
      body: null,
      bodyUsed: false,
      text: () => Promise.reject(new Error("reset")),
      arrayBuffer: () => Promise.reject(new Error("reset")),
    };
    const res = await receiver.handle({
      method: "POST",
      url: "/webhooks",
      headers: { ...AUTH, "content-length": "10" },
      body: failing,
    });
    expect(res.status).toBe(400);
    expect(errors.map((e) => e.code)).toEqual(["body_read_failed"]);
  });

  it("counts UTF-8 bytes, not characters, against the limit", async () => {
    // The limit sits 250 above the sample: 100 "é" (200 bytes) fit, 150 (300 bytes) do not,
    // though both are fewer than 250 characters.
    const limit = JSON.stringify({ ...SAMPLE_DLR, custom: "" }).length + 250;
    const { receiver } = setup({ maxBodyBytes: limit });
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
    const bodies: ReceiverRequest["body"][] = [
      text,
      bytes,
      bytes.buffer.slice(0),
      new Blob([bytes]).stream(),
      chunks(),
      { ...SAMPLE_DLR },
    ];
    for (const body of bodies) expect((await receiver.handle(post(body))).status).toBe(200);
    expect(deliveries.map((d) => d.id)).toEqual(Array(6).fill(SAMPLE_DLR.id));
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
