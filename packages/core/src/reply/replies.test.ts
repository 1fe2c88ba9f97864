import { describe, expect, it } from "vitest";
import { postJson as post } from "../../../../test/fixtures/receiver-requests.js";
import { SAMPLE_DLR, TOKEN } from "../../../../test/fixtures/samples.js";
import { createReceiver } from "../receiver/create-receiver.js";

describe("replies", () => {
  it("core's fixed replies are built once and frozen, so no adapter can change them", async () => {
    const receiver = createReceiver({ secret: TOKEN, onDelivery: () => {} });
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
});
