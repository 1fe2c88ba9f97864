import { describe, expect, it } from "vitest";
import { memoryDedupe } from "../store-kit/memory-dedupe.js";
import { createReceiver } from "./create-receiver.js";
import type { ReceiverOptions } from "./options.js";

describe("checkOptions: every option is checked at construction, by name", () => {
  const onDelivery = () => {};
  const queue = { enqueue: async () => {} };
  it.each([
    [{ onDelivery }, /no secret given/],
    [{ secret: "", onDelivery }, /`secret` is empty/],
    [{ secret: [], onDelivery }, /must be a string, an array/],
    [{ secret: ["a", ""], onDelivery }, /`secret\[1\]` is empty/],
    [{ secret: 42, onDelivery }, /must be a string/],
    [{ secret: "t", onDelivery, dedupe: { store: {} } }, /`dedupe.store` must be a dedupe store/],
    [
      { secret: "t", onDelivery, deadlineMs: 0 },
      /`deadlineMs` must be a whole number of milliseconds above 0/,
    ],
    [{ secret: "t", onDelivery, logger: {} }, /`logger` must be an object with `warn` and `error`/],
    [{ secret: "t", onDelivery, dedupe: { key: "id" } }, /`dedupe.key` must be a function/],
    [{ secret: "t", onDelivery, queue }, /either `queue`/],
    [{ secret: "t", queue: {} }, /`queue` must be a report queue/],
    [{ secret: " t" }, /whitespace around it/],
    [{ secret: "to ken" }, /has a space at character 3/],
    [{ secret: "tok\u0000en" }, /control character at character 4/],
    [{ secret: "tokén" }, /non-ASCII character at character 4/],
    [{ secret: "token," }, /ends with a comma/],
    [null, /pass an options object/],
    ["t", /pass an options object/],
    [{ secret: "t", onDelivery: "nope" }, /`onDelivery` must be a function/],
    [{ token: "t", onDelivery }, /`token` was renamed: pass `secret`/],
    [
      { secret: false, header: "x-api-key", onDelivery },
      /`header` was renamed: pass `secret: \{ value, header \}`/,
    ],
    [{ secret: "t", onDelivery, path: "/hooks" }, /unknown option `path`.*adapter's option/],
    [
      { secret: "t", onDelivry: onDelivery },
      /unknown option `onDelivry` \(did you mean `onDelivery`\?\)/,
    ],
    [
      { secret: "t", queue, dedupe: memoryDedupe() },
      /in queue mode the queue deduplicates.*leave `dedupe` out/,
    ],
    [
      { secret: "t", onDelivery, body: { maxBytes: 0 } },
      /`body.maxBytes` must be a whole number above 0/,
    ],
    [
      { secret: "t", onDelivery, body: { timeoutMs: 0 } },
      /`body.timeoutMs` must be a whole number of milliseconds/,
    ],
    [
      { secret: "t", onDelivery, body: { timeoutMs: 1.5 } },
      /`body.timeoutMs` must be a whole number of milliseconds/,
    ],
    [
      { secret: "t", onDelivery, body: { maxByte: 1 } },
      /unknown option `body.maxByte` \(did you mean `body.maxBytes`\?\)/,
    ],
    [{ secret: "t", onDelivery, timeZone: "India/Delhi" }, /India\/Delhi/],
    [
      { secret: { value: "t", header: "bad header" }, onDelivery },
      /`secret.header` must be a header name/,
    ],
    [{ secret: { value: "t" }, onDelivery }, /`secret.header` must be a header name/],
    [
      { secret: "t", onDelivery, verification: { token: " k" } },
      /`verification.token` must be the webhook's token/,
    ],
    [
      { secret: "t", onDelivery, verification: { respond: 1 } },
      /`verification.respond` must be a function/,
    ],
    [
      { secret: "k", onDelivery, verification: { token: "k" } },
      /`verification.token` is the webhook's secret/,
    ],
  ])("%o throws %s", (options, message) => {
    expect(() => createReceiver(options as unknown as ReceiverOptions)).toThrow(message);
  });

  it("takes the eleven options and the handlers, each in its group", () => {
    const receiver = createReceiver({
      secret: { value: "t", header: "x-api-key" },
      verification: { token: "k", respond: () => undefined },
      body: { maxBytes: 1024, timeoutMs: 100 },
      dedupe: { store: memoryDedupe(), key: (report) => report.type },
      journal: false,
      logger: false,
      deadlineMs: false,
      timeZone: "UTC",
      onDelivery,
      onCall: onDelivery,
      onUnsubscribe: onDelivery,
      onEvent: onDelivery,
      onError: onDelivery,
    });
    expect(typeof receiver.handle).toBe("function");
    expect(() => createReceiver({ secret: "t", queue, dedupe: { key: () => "k" } })).not.toThrow();
  });

  it("never echoes the secret in a construction error", () => {
    expect(() => createReceiver({ secret: ["secret-abc", ""], onDelivery })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("secret-abc") }),
    );
  });
});
