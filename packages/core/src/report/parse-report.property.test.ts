// Property tests: whatever a sender pushes, a report is refused only when it has no identity,
// and whatever is taken is exactly what the exported schemas say a handler receives.
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
    source: optional(field.text),
    recording_url: optional(field.text),
  }),
});

type Case = { payload: Record<string, unknown>; identified: boolean };

/** Keys with an undefined value are left out, as JSON leaves them out. */
function defined(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
}

/** A number a call report can be told by: readable as a phone number, not blank. */
const isNumber = (v: unknown) =>
  (typeof v === "string" && v.trim() !== "") ||
  (typeof v === "number" && Number.isSafeInteger(v) && v >= 0);

const cases: fc.Arbitrary<Case> = fc.oneof(
  deliveryPayload.map(({ id, status, rest }) => {
    const payload = defined({ id: id.value, status: status.value, ...rest });
    // A delivery report is told by a field of its own: id and status alone are an opt-out's too.
    const own = Object.keys(payload).some((key) => !["id", "status", "operator"].includes(key));
    return { payload, identified: id.usable && status.usable && own };
  }),
  callPayload.map(({ status, mid, webhookId, rest }) => ({
    payload: defined({
      status: status.value,
      mid: mid.value,
      webhook_id: webhookId.value,
      ...rest,
    }),
    identified:
      status.usable &&
      (mid.usable || webhookId.usable || [rest.bridge, rest.from, rest.to].some(isNumber)),
  })),
);

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
  for (const warning of report.warnings) expect(payload).toHaveProperty([warning.field]);
  expect(report.raw).toBe(payload);
}

describe("parseReport: properties", () => {
  it("takes every identified report, valid by the schema; refuses only the unidentified", () => {
    fc.assert(
      fc.property(cases, ({ payload, identified }) => {
        const result = parseReport(payload);
        if (result.ok) {
          expect(identified).toBe(true);
          expectValid(result.report, payload);
        } else {
          expect(identified).toBe(false);
          expect(["invalid_report", "unrecognized_report"]).toContain(result.error.code);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("through createReceiver(...).handle: 200 means the handler got a report the schema accepts", async () => {
    const received: Report[] = [];
    const receiver = createReceiver({
      secret: TOKEN,
      // Generated payloads repeat identities; each one is a report of its own here.
      dedupe: false,
      onDelivery: (report) => {
        received.push(report);
      },
      onCall: (report) => {
        received.push(report);
      },
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ payload, identified }) => {
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
          expect(received).toHaveLength(1);
          expectValid(received[0] as Report, (received[0] as Report).raw);
          expect(received[0]?.raw).toEqual(JSON.parse(body));
        } else {
          expect(response.status).toBe(400);
          expect(received).toHaveLength(0);
        }
      }),
      { numRuns: 500 },
    );
  });
});
