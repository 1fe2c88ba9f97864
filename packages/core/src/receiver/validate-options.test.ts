import { describe, expect, it } from "vitest";
import { memoryDedupe } from "../store-kit/memory-dedupe.js";
import { createReceiver } from "./create-receiver.js";
import type { ReceiverOptions } from "./receiver-options.js";

describe("validateOptions: every option is checked at construction", () => {
  const onDelivery = () => {};
  it.each([
    [{ onDelivery }, /no secret given/],
    [{ token: "", onDelivery }, /`token` is empty/],
    [{ token: [], onDelivery }, /must be a string, an array/],
    [{ token: ["a", ""], onDelivery }, /`token\[1\]` is empty/],
    [{ token: 42, onDelivery }, /must be a string/],
    [{ token: "t", onDelivery, dedupe: {} }, /`dedupe` must be a dedupe store/],
    [{ token: "t", onDelivery, deadlineMs: 0 }, /`deadlineMs` must be a positive/],
    [{ token: "t", onDelivery, logger: {} }, /`logger` must have `warn` and `error`/],
    [{ token: "t", onDelivery, dedupeKey: "id" }, /`dedupeKey` must be a function/],
    [{ token: "t", onDelivery, queue: { enqueue: async () => {} } }, /either `queue`/],
    [{ token: "t", queue: {} }, /`queue` must be a report queue/],
    [{ token: " t" }, /whitespace around it/],
    [{ token: "to ken" }, /has a space at character 3/],
    [{ token: "tok\u0000en" }, /control character at character 4/],
    [{ token: "tokén" }, /non-ASCII character at character 4/],
    [{ token: "token," }, /ends with a comma/],
    [null, /must be an object, or left out/],
    ["t", /must be an object, or left out/],
    [{ token: "t", onDelivery: "nope" }, /`onDelivery` must be a function/],
    [{ token: "t", auth: false, onDelivery }, /`auth: false` .*`token` would never be checked/],
    [{ auth: false, header: "x-api-key", onDelivery }, /`header` would never be checked/],
    [
      { token: "t", onDelivery, path: "/hooks" },
      /unknown receiver option `path`.*adapter's option/,
    ],
    [
      { token: "t", onDelivry: onDelivery },
      /unknown receiver option `onDelivry` \(did you mean `onDelivery`\?\)/,
    ],
    [
      { token: "t", queue: { enqueue: async () => {} }, dedupe: memoryDedupe() },
      /in queue mode the queue deduplicates.*leave it out/,
    ],
    [{ token: "t", onDelivery, maxBodyBytes: 0 }, /maxBodyBytes/],
    [{ token: "t", onDelivery, bodyTimeoutMs: 0 }, /`bodyTimeoutMs` must be a positive whole/],
    [{ token: "t", onDelivery, bodyTimeoutMs: 1.5 }, /`bodyTimeoutMs` must be a positive whole/],
    [{ token: "t", onDelivery, timeZone: "India/Delhi" }, /India\/Delhi/],
    [{ token: "t", onDelivery, header: "bad header" }, /header name/],
  ])("%o throws %s", (options, message) => {
    expect(() => createReceiver(options as unknown as ReceiverOptions)).toThrow(message);
  });

  it("never echoes the token in a construction error", () => {
    expect(() => createReceiver({ secret: ["secret-abc", ""], onDelivery })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("secret-abc") }),
    );
  });
});
