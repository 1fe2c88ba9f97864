// What micro.mjs's tasks send a receiver: the fixtures run.ts passes (BENCH_FIXTURES), requests
// built from them, bodies with a report id of their own per call, and a receiver's handle
// checked to answer as expected before it is timed.
import { createReceiver } from "@reportkit/core";
import { withCredential } from "./servers/common.mjs";

export const fixtures = JSON.parse(process.env.BENCH_FIXTURES ?? "null");

export const strings = (report) =>
  Object.fromEntries(Object.entries(report).map(([key, value]) => [key, String(value)]));
export const authorization = () => `Bearer ${fixtures.token}`;

export function request(contentType, body, extra) {
  return {
    method: "POST",
    url: "/webhooks",
    headers: { authorization: authorization(), "content-type": contentType, host: "127.0.0.1" },
    body,
    ...extra,
  };
}

export async function multipart(fields) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  const encoded = new Response(form);
  return {
    type: encoded.headers.get("content-type"),
    bytes: new Uint8Array(await encoded.arrayBuffer()),
  };
}

export const OK_BODY = '{"ok":true}';

/**
 * A receiver's handle with the default in-memory dedupe store on, for requests that `next()`
 * gives: each with a report id of its own, so every request claims and completes a key as a
 * real sender's reports do (a fixed request would be answered "duplicate" from the second on).
 * Checked to answer 200 and not a duplicate before it is timed.
 */
export async function handlesUnique(options, next, expected = 200, expectedBody = OK_BODY) {
  const receiver = createReceiver(
    withCredential({ onDelivery() {}, onCall() {}, logger: false, ...options }),
  );
  const first = await receiver.handle(next());
  const second = await receiver.handle(next());
  // The first of a repeated request is the original; the second is what gets timed.
  for (const reply of [first, second]) {
    if (reply.status !== expected) {
      throw new Error(`expected ${expected}, got ${reply.status} ${reply.body}`);
    }
  }
  if (expected === 200 && second.body !== expectedBody) {
    throw new Error(`expected ${expectedBody}, got ${second.body}`);
  }
  return {
    async: true,
    run: async () => (await receiver.handle(next())).status === expected,
  };
}

/** Where a unique id goes in a prepared body: 12 digits, rewritten per request by uniqueBytes. */
export const UNIQUE_SLOT = "000000000000";

/** Copies of `bytes` with a count written over the UNIQUE_SLOT digits, a new one per call. */
export function uniqueBytes(bytes) {
  const slot = Buffer.from(bytes).indexOf(UNIQUE_SLOT);
  if (slot === -1) throw new Error("no unique slot in the body");
  let count = 0;
  return () => {
    const copy = bytes.slice();
    let n = ++count;
    for (let i = slot + UNIQUE_SLOT.length - 1; i >= slot; i--) {
      copy[i] = 48 + (n % 10);
      n = Math.floor(n / 10);
    }
    return copy;
  };
}

/** One fixed request (refusals and bodies without an identity, which nothing deduplicates). */
export function handles(options, req, expected = 200, expectedBody = undefined) {
  return handlesUnique(options, () => req, expected, expectedBody);
}

/**
 * A JSON body with a fresh value of `field` on each call, built as a sender's text is: the
 * cost of building it (about 40 ns) is in the figure, and in the reference row below.
 */
export function uniqueJson(report, field) {
  const marker = "\u0000unique\u0000";
  const [before, after] = JSON.stringify({ ...report, [field]: marker }).split(
    JSON.stringify(marker),
  );
  let count = 0;
  return () => `${before}"${report[field]}-${++count}"${after}`;
}
