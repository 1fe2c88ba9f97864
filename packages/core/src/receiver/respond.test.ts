import { describe, expect, it } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../../../../test/fixtures/samples.js";
import { createReceiver } from "./create-receiver.js";
import type { ReceiverRequest } from "./types.js";

let sequence = 0;
function dlr(overrides: Partial<ReceiverRequest> = {}, id = `respond-${++sequence}`) {
  return {
    method: "POST",
    url: "/webhooks",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ ...SAMPLE_DLR, id }),
    ...overrides,
  } satisfies ReceiverRequest;
}

describe("receiver.respond: handle's reply, without a promise when none is needed", () => {
  it("answers at once when every step is synchronous, and the reply is handle's", async () => {
    const seen: string[] = [];
    const receiver = createReceiver({ token: TOKEN, onDelivery: (r) => void seen.push(r.id) });
    const first = receiver.respond(dlr({}, "same"));
    expect(first).not.toBeInstanceOf(Promise);
    expect(first).toEqual(await createReceiver({ token: TOKEN, onDelivery() {} }).handle(dlr()));
    const again = receiver.respond(dlr({}, "same"));
    expect(again).toMatchObject({ status: 200, body: '{"ok":true,"duplicate":true}' });
    expect(seen).toEqual(["same"]);
  });

  it("refusals are replies too, never throws", () => {
    const receiver = createReceiver({ token: TOKEN, onDelivery() {}, logger: false });
    const refused = receiver.respond(dlr({ headers: { authorization: "Bearer wrong" } }));
    expect(refused).toMatchObject({ status: 401 });
    expect(receiver.respond(dlr({ body: "{" }))).toMatchObject({ status: 400 });
    expect(receiver.respond(null as unknown as ReceiverRequest)).toMatchObject({ status: 405 });
  });

  it("gives a promise when something is asynchronous: a handler, a body still to read", async () => {
    const receiver = createReceiver({
      token: TOKEN,
      onDelivery: () => new Promise((resolve) => setTimeout(resolve, 5)),
    });
    const pending = receiver.respond(dlr());
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toMatchObject({ status: 200, body: '{"ok":true}' });

    const streamed = receiver.respond(
      dlr({ body: new Blob([JSON.stringify({ ...SAMPLE_DLR, id: "streamed" })]).stream() }),
    );
    expect(streamed).toBeInstanceOf(Promise);
    expect(await streamed).toMatchObject({ status: 200 });
  });

  it("a failing handler is a 500 reply either way", async () => {
    const failing = createReceiver({
      token: TOKEN,
      logger: false,
      onDelivery: () => {
        throw new Error("boom");
      },
    });
    expect(failing.respond(dlr())).toMatchObject({ status: 500 });
    const rejecting = createReceiver({
      token: TOKEN,
      logger: false,
      onDelivery: () => Promise.reject(new Error("boom")),
    });
    expect(await rejecting.respond(dlr())).toMatchObject({ status: 500 });
  });
});
