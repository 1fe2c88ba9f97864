// Property tests: whatever a sender pushes, a report is refused only when it has no identity,
// and whatever is taken is exactly what the exported schemas say a handler receives.

import { isRecord } from "@reportkit/wire/internal";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TOKEN } from "../../../../test/fixtures/samples.js";
import { createReceiver } from "../receiver/create-receiver.js";
import { parseReport } from "./parse-report.js";
import { REPORT_SCHEMAS, type Report } from "./schemas.js";

/** A generated value, and whether it can identify a report. */
type Identity = { value: unknown; usable: boolean };

const ABSENT = undefined;
const garbage = fc.oneof(
  fc.constantFrom({}, [], true, false, null, { nested: { a: 1 } }, ["x"], "N/A", "  ", "-"),
  fc.string(),
  fc.double(),
  fc.object({ maxDepth: 1 }),
);
const text = fc.oneof(fc.string({ minLength: 1 }), fc.uuid(), fc.integer({ min: 0 }));

const usableIdentity: fc.Arbitrary<Identity> = fc
  .oneof(
    fc.stringMatching(/^[A-Za-z0-9:-]{1,40}$/),
    fc.constantFrom("DELIVRD", "ANSWER", " UNDELIV ", "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1"),
    fc.integer({ min: -1e6, max: Number.MAX_SAFE_INTEGER }),
  )
  .map((value) => ({ value, usable: true }));
const unusableIdentity: fc.Arbitrary<Identity> = fc
  .constantFrom<unknown>(
    ABSENT,
    null,
    "",
    "   ",
    {},
    [],
    ["x"],
    true,
    { id: "x" },
    2 ** 53 + 2,
    1e300,
    Number.NaN,
  )
  .map((value) => ({ value, usable: false }));
const identity = fc.oneof(
  { arbitrary: usableIdentity, weight: 8 },
  { arbitrary: unusableIdentity, weight: 2 },
);

/** Valid values, their obvious equivalents, and garbage, for each kind of field. */
const field = {
  phone: fc.oneof(
    fc.constantFrom("919876543210", "+91 98765-43210", "(0) 98765.43210", "anonymous", ""),
    fc.integer({ min: 0, max: 999_999_999_999_999 }),
    fc.constantFrom(9.5, -1, 1e20, 918068281234),
    garbage,
  ),
  decimal: fc.oneof(
    fc.constantFrom("2.0000", "0.2500", ".25", "2", "+002.50", "-0.5", "1.5e-3", "1e999", "2,00"),
    fc.constantFrom(1e21, 1e-7, 0.0125, 2, -0, 1.7976931348623157e308, 5e-324),
    fc.double(),
    fc.stringMatching(/^[+-]?\d{0,6}(\.\d{0,6})?(e[+-]?\d{1,3})?$/),
    garbage,
  ),
  count: fc.oneof(
    fc.constantFrom("2.0", "23.0", "1", " 3 ", "+4", "2.5", "abc", "99999999999999999999", ""),
    fc.integer(),
    fc.nat().map(String),
    fc.double(),
    garbage,
  ),
  unix: fc.oneof(
    fc.constantFrom("9000000000000000", "1617985671", "1617985671.5", "0", "yesterday", ""),
    fc.constantFrom(1e300, -5, 1617985671000, 8.64e15, 8.64e15 + 1),
    fc.integer({ min: 0, max: 9e15 }),
    fc.integer({ min: 0, max: 9e15 }).map(String),
    fc.double(),
    garbage,
  ),
  wallClock: fc.oneof(
    fc.constantFrom(
      "2021-04-09 16:27:51",
      "0000-00-00 00:00:00",
      "",
      "N/A",
      "2021-02-30 10:00:00",
      "2021-04-09T16:27:51+05:30",
      "2021-04-09T16:27:51Z",
      "1617985671",
      "1617985671000",
      "9999999999999",
      "0",
      "09/04/2021",
    ),
    fc
      .date({ min: new Date(0), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 19).replace("T", " ")),
    fc.integer({ min: 0, max: 9_999_999_999_999 }),
    garbage,
  ),
  text: fc.oneof(text, fc.constantFrom("", 2 ** 64, 1.5), garbage),
};

/** Each optional field is absent, or one of the values above. */
function optional(arbitrary: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.option(arbitrary, { nil: undefined, freq: 4 });
}

const deliveryPayload = fc.record({
  id: identity,
  status: identity,
  rest: fc.record({
    mobile: optional(field.phone),
    credits: optional(field.decimal),
    units: optional(field.count),
    deliv_at: optional(field.unix),
    sent_at: optional(field.unix),
    submit_at: optional(field.unix),
    deliv_time: optional(field.wallClock),
    sent_time: optional(field.wallClock),
    submit_time: optional(field.wallClock),
    cid: optional(field.text),
    custom: optional(field.text),
    operator: optional(field.text),
  }),
});

const callPayload = fc.record({
  status: identity,
  mid: identity,
  webhookId: identity,
  rest: fc.record({
    bridge: optional(field.phone),
    from: optional(field.phone),
    to: optional(field.phone),
    start_at: optional(field.wallClock),
    end_at: optional(field.wallClock),
    duration: optional(field.count),
    flow_id: optional(field.count),
    source: optional(fc.oneof(fc.constantFrom("OBD", "C2C"), field.text)),
    recording_url: optional(field.text),
    // Click2Call's own.
    billing: optional(field.count),
    status1: optional(field.text),
    status2: optional(field.text),
    hangup_by: optional(fc.oneof(fc.constantFrom("caller", "agent"), field.text)),
    date: optional(field.wallClock),
    unixtime: optional(field.unix),
  }),
  // An IVR flow in place of the number called.
  flow: fc.option(
    fc.nat({ max: 9999 }).map((n) => `flow:${n}`),
    { nil: undefined, freq: 5 },
  ),
});

const unsubscribePayload = fc.record({
  id: identity,
  receiver: fc.oneof(field.phone, fc.constant(null)),
  rest: fc.record({
    type: optional(fc.oneof(fc.constantFrom("sender", "all"), field.text)),
    value: optional(fc.oneof(fc.constantFrom("Demo12", "*"), field.text)),
    created_at: optional(
      fc.oneof(fc.constantFrom("2023-07-08T12:52:54.000000Z"), field.wallClock, field.unix),
    ),
    status: optional(fc.oneof(fc.constant("Unsubscriber created successfully"), field.text)),
  }),
});

/** Another channel's event name: never one whose payload is a report of a kind of its own. */
const otherEvent = fc.oneof(
  fc.constantFrom(
    "whatsapp:message:status",
    "rcs:message:status",
    "viber:message:status",
    "vmn:message:in",
    "contacts:subscriber:subscription",
  ),
  fc
    .string({ minLength: 1, maxLength: 40 })
    .filter(
      (name) =>
        !name.endsWith(":unsubscription") &&
        name !== "sms:message:status" &&
        name !== "voice:message:out",
    ),
);
const UNSUBSCRIPTIONS = ["sms:unsubscription", "voice:unsubscription", "whatsapp:unsubscription"];

/** What an arbitrary generates. */
type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : never;

/** A generated body: the kind it must be read as when it is identified, and whether it is. */
type Case = { payload: Record<string, unknown>; kind: Report["type"]; identified: boolean };

/** Keys with an undefined value are left out, as JSON leaves them out. */
function defined(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
}

/** A number a call report can be told by: readable as a phone number, not blank. */
const isNumber = (v: unknown) =>
  (typeof v === "string" && v.trim() !== "") ||
  (typeof v === "number" && Number.isSafeInteger(v) && v >= 0);

/** A delivery report's body, and whether it can be identified (`own`: it needs a field of its own). */
function delivery({ id, status, rest }: ValueOf<typeof deliveryPayload>, own: boolean) {
  const payload = defined({ id: id.value, status: status.value, ...rest });
  // Bare, a delivery report is told by a field of its own: id and status alone are an opt-out's too.
  const hasOwn = Object.keys(payload).some((key) => !["id", "status", "operator"].includes(key));
  return { payload, identified: id.usable && status.usable && (hasOwn || !own) };
}

function call({ status, mid, webhookId, rest, flow }: ValueOf<typeof callPayload>) {
  const payload = defined({
    status: status.value,
    mid: mid.value,
    webhook_id: webhookId.value,
    ...rest,
    ...(flow !== undefined && { to: flow }),
  });
  const numbers = [payload.bridge, payload.from, payload.to].filter((v) => v !== flow);
  const identified = status.usable && (mid.usable || webhookId.usable || numbers.some(isNumber));
  return { payload, identified };
}

function unsubscribe({ id, receiver, rest }: ValueOf<typeof unsubscribePayload>) {
  return { payload: defined({ id: id.value, receiver, ...rest }), identified: id.usable };
}

const envelope = (event: string, payload: Record<string, unknown>) => ({ event, payload });

const cases: fc.Arbitrary<Case> = fc.oneof(
  deliveryPayload.map((d) => ({ ...delivery(d, true), kind: "delivery" as const })),
  callPayload.map((c) => ({ ...call(c), kind: "call" as const })),
  unsubscribePayload.map((u) => ({ ...unsubscribe(u), kind: "unsubscribe" as const })),
  // The same reports in the events' envelope (v2/event/index.md).
  deliveryPayload.map((d) => {
    const { payload, identified } = delivery(d, false);
    return {
      payload: envelope("sms:message:status", payload),
      identified,
      kind: "delivery" as const,
    };
  }),
  callPayload.map((c) => {
    const { payload, identified } = call(c);
    return { payload: envelope("voice:message:out", payload), identified, kind: "call" as const };
  }),
  fc.tuple(fc.constantFrom(...UNSUBSCRIPTIONS), unsubscribePayload).map(([name, u]) => {
    const { payload, identified } = unsubscribe(u);
    return { payload: envelope(name, payload), identified, kind: "unsubscribe" as const };
  }),
  // Other events: any payload, always taken.
  fc.tuple(otherEvent, fc.object({ maxDepth: 2 })).map(([name, payload]) => ({
    payload: envelope(name, payload),
    identified: true,
    kind: "event" as const,
  })),
  // The two bare bodies that are events: a smart-link visit and a contact update.
  fc
    .record({ id: optional(text), link_id: fc.oneof(text, garbage), mobile: optional(field.phone) })
    .map((visit) => ({ payload: defined(visit), identified: true, kind: "event" as const })),
  fc
    .record({
      id: optional(text),
      identity: fc.oneof(field.phone, garbage),
      status: optional(text),
    })
    .map((update) => ({ payload: defined(update), identified: true, kind: "event" as const })),
);

/** How many cases each property runs: REPORTKIT_PROPERTY_RUNS for a long run (1,000,000 once). */
const RUNS = Number(process.env.REPORTKIT_PROPERTY_RUNS ?? 1000);

/** What every acknowledged report must be: the schema's, with real dates and plain credits. */
function expectValid(report: Report, payload: Record<string, unknown>): void {
  const schema = REPORT_SCHEMAS[report.type];
  const parsed = schema.safeParse(report);
  expect(parsed.error?.issues ?? []).toEqual([]);
  for (const value of Object.values(report)) {
    if (value instanceof Date) expect(Number.isFinite(value.getTime())).toBe(true);
  }
  if (report.type === "delivery" && report.credits !== null) {
    expect(report.credits).toMatch(/^-?\d+\.\d{4,}$/);
  }
  // A warning names a field the payload carries; its value is still there, untouched.
  const fields = isRecord(payload.payload) && report.type !== "event" ? payload.payload : payload;
  const own = report.type === "event" ? report.payload : fields;
  for (const warning of report.warnings) expect(own).toHaveProperty([warning.field]);
}

describe("parseReport: properties", () => {
  it("reads every body as exactly its kind, valid by the schema; refuses only the unidentified", () => {
    fc.assert(
      fc.property(cases, ({ payload, kind, identified }) => {
        const result = parseReport(payload);
        if (result.ok) {
          expect([result.report.type, identified]).toEqual([kind, true]);
          expectValid(result.report, payload);
        } else {
          expect(identified).toBe(false);
          expect(["invalid_report", "unrecognized_report"]).toContain(result.error.code);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("through createReceiver(...).handle: 200 means the handler got a report the schema accepts", async () => {
    const received: Report[] = [];
    const receiver = createReceiver({
      secret: TOKEN,
      // Generated payloads repeat identities; each one is a report of its own here.
      dedupe: false,
      logger: false,
      onDelivery: (report) => {
        received.push(report);
      },
      onCall: (report) => {
        received.push(report);
      },
      onUnsubscribe: (report) => void received.push(report),
      onEvent: (report) => void received.push(report),
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ payload, kind, identified }) => {
        received.length = 0;
        // JSON has no undefined, NaN or Infinity: the wire payload is what JSON makes of it.
        const body = JSON.stringify(payload);
        const response = await receiver.handle({
          method: "POST",
          url: "/webhooks",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body,
        });
        if (identified) {
          expect(response.status).toBe(200);
          expect(received.map((report) => report.type)).toEqual([kind]);
          expectValid(received[0] as Report, JSON.parse(body));
        } else {
          expect(response.status).toBe(400);
          expect(received).toHaveLength(0);
        }
      }),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });
});
