// The micro-benchmarks micro.mjs runs, by index: references (JSON.parse, a zod schema), then
// @reportkit/core's parseReport, bearer check and Receiver.handle on each kind of request.
import { parseReport } from "@reportkit/core";
import {
  authorization,
  fixtures,
  handles,
  handlesUnique,
  multipart,
  request,
  strings,
  UNIQUE_SLOT,
  uniqueBytes,
  uniqueJson,
} from "./micro-requests.mjs";

/**
 * The bearer check is internal to core (no entry exports it): measured from the built file,
 * loaded by the tasks that need it, so that a core where it has moved fails those two rows only.
 */
async function secretCheck(secrets) {
  const { secretCheck } = await import("../../packages/core/dist/request/authenticate.js");
  return secretCheck(secrets);
}

import { DeliveryReport } from "./servers/hand-written.mjs";

// Each entry: a name and a setup giving { run, async }; run returns true when it worked.
export const TASKS = [
  [
    "JSON.parse of the DLR (reference)",
    () => {
      const text = JSON.stringify(fixtures.dlr);
      return { run: () => JSON.parse(text) !== null };
    },
  ],
  [
    "zod parse of the DLR, hand-written schema (reference)",
    () => ({ run: () => DeliveryReport.safeParse(fixtures.dlr).success }),
  ],
  ["parseReport: DLR (the sample)", () => ({ run: () => parseReport(fixtures.dlr).ok })],
  [
    "parseReport: DLR with unix times",
    () => {
      const dlr = {
        ...fixtures.dlr,
        deliv_at: 1617965871,
        sent_at: 1617965868,
        submit_at: 1617965869,
      };
      return { run: () => parseReport(dlr).ok };
    },
  ],
  [
    "parseReport: DLR, every value a string (form)",
    () => {
      const dlr = strings(fixtures.dlr);
      return { run: () => parseReport(dlr).ok };
    },
  ],
  ["parseReport: call report (the sample)", () => ({ run: () => parseReport(fixtures.call).ok })],
  [
    "parseReport: call report, every value a string (form)",
    () => {
      const call = strings(fixtures.call);
      return { run: () => parseReport(call).ok };
    },
  ],
  [
    "parseReport: rejected DLR (status missing)",
    () => {
      const { status: _, ...dlr } = fixtures.dlr;
      return { run: () => !parseReport(dlr).ok };
    },
  ],
  [
    "bearer check, 1 token",
    async () => {
      const check = await secretCheck(fixtures.token);
      const value = authorization();
      return { run: () => check(value) === "ok" };
    },
  ],
  [
    "bearer check, 10 tokens",
    async () => {
      const old = Array.from({ length: 9 }, (_, i) => `${fixtures.token}-old-${i}`);
      const check = await secretCheck([...old, fixtures.token]);
      const value = authorization();
      return { run: () => check(value) === "ok" };
    },
  ],
  [
    "building a unique DLR body (reference, included in the rows below)",
    () => {
      const next = uniqueJson(fixtures.dlr, "id");
      return { run: () => next().length > 0 };
    },
  ],
  [
    "Receiver.handle: DLR, JSON string body",
    () => {
      const next = uniqueJson(fixtures.dlr, "id");
      return handlesUnique({}, () => request("application/json", next()));
    },
  ],
  [
    "Receiver.handle: DLR, JSON string body, dedupe off",
    () => {
      const next = uniqueJson(fixtures.dlr, "id");
      return handlesUnique({ dedupe: false }, () => request("application/json", next()));
    },
  ],
  [
    "Receiver.handle: DLR, JSON bytes body",
    () => {
      const next = uniqueJson(fixtures.dlr, "id");
      const encoder = new TextEncoder();
      return handlesUnique({}, () => request("application/json", encoder.encode(next())));
    },
  ],
  [
    "Receiver.handle: call report, JSON string body",
    () => {
      const next = uniqueJson(fixtures.call, "mid");
      return handlesUnique({}, () => request("application/json", next()));
    },
  ],
  [
    "Receiver.handle: a duplicate DLR (answered from the dedupe store)",
    () =>
      handles(
        {},
        request("application/json", JSON.stringify(fixtures.dlr)),
        200,
        '{"ok":true,"duplicate":true}',
      ),
  ],
  [
    "Receiver.handle: rejected, invalid JSON (400)",
    () => handles({}, request("application/json", '{"id": "1", "status": '), 400),
  ],
  [
    "Receiver.handle: rejected, unrecognized report (400)",
    () => handles({}, request("application/json", '{"hello": "world"}'), 400),
  ],
  [
    "Receiver.handle: rejected, DLR without its status (400)",
    () => {
      const { status: _, ...dlr } = fixtures.dlr;
      return handles({}, request("application/json", JSON.stringify(dlr)), 400);
    },
  ],
  [
    "Receiver.handle: rejected, wrong token (401)",
    () => {
      const req = request("application/json", JSON.stringify(fixtures.dlr));
      return handles(
        {},
        { ...req, headers: { ...req.headers, authorization: "Bearer nope" } },
        401,
      );
    },
  ],
  [
    "Receiver.handle: DLR, urlencoded body",
    () => {
      let count = 0;
      const form = new URLSearchParams(strings(fixtures.dlr));
      return handlesUnique({}, () => {
        form.set("id", `${fixtures.dlr.id}-${++count}`);
        return request("application/x-www-form-urlencoded", form.toString());
      });
    },
  ],
  [
    "Receiver.handle: DLR, multipart body",
    async () => {
      const { type, bytes } = await multipart({ ...strings(fixtures.dlr), id: UNIQUE_SLOT });
      const next = uniqueBytes(bytes);
      return handlesUnique({}, () => request(type, next()));
    },
  ],
  [
    "Receiver.handle: composed GET (query)",
    () => {
      const query = new URLSearchParams({
        call_id: UNIQUE_SLOT,
        to: String(fixtures.call.to),
        message_status: String(fixtures.call.status),
        duration: String(fixtures.call.duration),
      }).toString();
      const [before, after] = query.split(UNIQUE_SLOT);
      let count = 0;
      return handlesUnique({ composed: fixtures.composed.get.template }, () =>
        request(undefined, undefined, {
          method: "GET",
          url: `${fixtures.composed.get.path}?${before}${fixtures.call.mid}-${++count}${after}`,
          headers: { authorization: authorization(), host: "127.0.0.1" },
        }),
      );
    },
  ],
  [
    "Receiver.handle: composed multipart (form)",
    async () => {
      const dlr = fixtures.dlr;
      const { type, bytes } = await multipart({
        message_id: UNIQUE_SLOT,
        phone: dlr.mobile,
        message_status: dlr.status,
        delivered: dlr.deliv_time,
        sent: dlr.sent_time,
        credits: dlr.credits,
        ref: dlr.custom,
      });
      const next = uniqueBytes(bytes);
      return handlesUnique({ composed: fixtures.composed.multipart.template }, () =>
        request(type, next(), { url: fixtures.composed.multipart.path }),
      );
    },
  ],
];
