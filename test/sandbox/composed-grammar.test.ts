// One template grammar (@reportkit/wire) on both sides, as a property: every template the
// sandbox registers is one `createReceiver({ composed })` accepts, and a report the sandbox
// pushes through it (its real renderer, a real HTTP request) reaches a real receiver on
// node:http, answered 2xx with the report's values; every template core refuses, the sandbox's
// HTTP API refuses with a 422 naming the same problems (same fields, same messages).

import http from "node:http";
import {
  type ComposedTemplate,
  ComposedTemplateError,
  createReceiver,
  parseReport,
  type Receiver,
  type ReceiverResponse,
  type Report,
} from "@reportkit/core";
import { createSandbox, PAYLOAD_STYLES, type PayloadStyle, type Sandbox } from "@reportkit/sandbox";
import { PROVIDER_TIME_ZONE, recordingExpiry } from "@reportkit/wire";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callOverrides, smsOverrides, validTemplates } from "./composed-templates.js";
import { listen, stop } from "./servers.js";

const API_TOKEN = "sandbox-api-token";
const RECEIVER_SECRET = "receiver-secret";

// The report field each variable fills: the oracle, written out independently of core.
const REPORT_FIELD: Record<"delivery" | "call", Record<string, string>> = {
  delivery: {
    id: "id",
    mobile: "mobile",
    status: "status",
    credits: "credits",
    units: "units",
    deliv_time: "deliveredAt",
    sent_time: "sentAt",
    submit_time: "submittedAt",
    deliv_at: "deliveredAt",
    sent_at: "sentAt",
    submit_at: "submittedAt",
    custom: "custom",
  },
  call: {
    id: "mid",
    webhook_id: "webhookId",
    mid: "mid",
    bridge: "bridge",
    from: "from",
    to: "to",
    start_at: "startedAt",
    end_at: "endedAt",
    duration: "duration",
    flow_id: "flowId",
    status: "status",
    source: "source",
    recording_url: "recordingUrl",
    billing: "billing",
    status1: "status1",
    status2: "status2",
    hangup_by: "hangupBy",
    unixtime: "reportedAt",
    date: "reportedAt",
  },
};
// Not values a template carries: `recordingExpiresAt` follows from the recording URL and the
// times the template does carry, checked on its own below.
const NOT_VALUES = new Set(["type", "raw", "warnings", "recordingExpiresAt"]);

/** One sandbox per payload style: composed pushes must arrive whole in either. */
const sandboxes = {} as Record<PayloadStyle, Sandbox>;
let sandbox: Sandbox;
let server: http.Server;
let origin: string;
/** The receiver the server hands requests to: one per generated template. */
let receiver: Receiver<ComposedTemplate> | undefined;
let replies: ReceiverResponse[] = [];
let reports: Report[] = [];

beforeAll(async () => {
  for (const payloads of PAYLOAD_STYLES) {
    sandboxes[payloads] = await createSandbox({
      token: API_TOKEN,
      retryIntervalMs: 10,
      // Generous: a push that times out is retried, and the test expects exactly one reply.
      timeoutMs: 10_000,
      payloads,
    });
  }
  sandbox = sandboxes.documented;
  server = http.createServer(async (req, res) => {
    if (receiver === undefined) return void res.writeHead(503).end();
    const reply = await receiver.handle({
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: req.headers,
      body: req,
    });
    replies.push(reply);
    res.writeHead(reply.status, reply.headers).end(reply.body);
  });
  origin = await listen(server);
});

afterAll(async () => {
  for (const each of Object.values(sandboxes)) await each.close();
  await stop(server);
});

const validTemplate = validTemplates(() => origin);

// ---- The two sides ---------------------------------------------------------------------------

/** Core's answer to a template: built, or the problems it names. */
function coreVerdict(template: Record<string, unknown>) {
  try {
    receiver = createReceiver({
      secret: RECEIVER_SECRET,
      timeZone: PROVIDER_TIME_ZONE,
      composed: template as unknown as ComposedTemplate,
      onDelivery: (report) => void reports.push(report),
      onCall: (report) => void reports.push(report),
    });
    return { ok: true as const };
  } catch (error) {
    if (!(error instanceof ComposedTemplateError)) throw error;
    return { ok: false as const, problems: error.problems };
  }
}

/** The sandbox's answer over its HTTP API: the webhook, or the 422's errors. */
async function registerOverHttp(template: Record<string, unknown>) {
  const response = await fetch(`${sandbox.baseUrl}sandbox/composed-webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "generated", secret: RECEIVER_SECRET, ...template }),
  });
  const body = (await response.json()) as {
    data: { id: string };
    errors?: Record<string, string[]>;
  };
  return { status: response.status, id: body.data?.id, errors: body.errors ?? {} };
}

function byField(problems: readonly { field: string; message: string }[]) {
  const grouped: Record<string, string[]> = {};
  for (const { field, message } of problems) {
    grouped[field] = [...(grouped[field] ?? []), message];
  }
  return grouped;
}

/** A report's values as compared: dates as instants, an empty promised text as absent. */
function comparable(value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  return value === "" ? null : value;
}

describe("one template grammar: the sandbox and core agree", () => {
  it.each(PAYLOAD_STYLES)(
    "every template the sandbox registers is accepted by core, and a push through it arrives with its values (payloads: %s)",
    async (payloads) => {
      sandbox = sandboxes[payloads];
      await fc.assert(
        fc.asyncProperty(
          validTemplate,
          smsOverrides,
          callOverrides,
          async (generated, sms, call) => {
            const { template, placements } = generated;
            replies = [];
            reports = [];
            const registered = await registerOverHttp(template);
            expect(registered.errors).toEqual({});
            expect(registered.status).toBe(200);
            expect(coreVerdict(template)).toEqual({ ok: true });

            const type = template.type as "delivery" | "call";
            const sent =
              type === "delivery"
                ? sandbox.sendSms({ webhookId: registered.id, ...sms })
                : sandbox.makeCall({ webhookId: registered.id, ...call });
            const outcome = await sent.outcome;
            expect({ outcome, replies: replies.map((r) => `${r.status} ${r.body}`) }).toEqual({
              outcome: "delivered",
              replies: [expect.stringMatching(/^2\d\d /)],
            });
            expect(reports).toHaveLength(1);

            // The oracle: the same payload pushed as a standard report, read by core.
            const standard = parseReport(sent.report, { timeZone: PROVIDER_TIME_ZONE });
            if (!standard.ok) throw standard.error;
            const promised = new Set(placements.map((p) => REPORT_FIELD[type][p.variable]));
            // `final`, `outcome`, `reason` and `transient` follow from the status, which every
            // template carries.
            if (promised.has("status"))
              for (const field of ["final", "outcome", "reason", "transient"]) promised.add(field);
            const got = reports[0] as unknown as Record<string, unknown>;
            const expected = standard.report as unknown as Record<string, unknown>;
            for (const [field, value] of Object.entries(got)) {
              if (NOT_VALUES.has(field)) continue;
              if (promised.has(field))
                expect([field, comparable(value)]).toEqual([field, comparable(expected[field])]);
              else expect([field, value]).toEqual([field, null]);
            }
            if (type === "call") {
              const { recordingUrl, reportedAt, endedAt, startedAt } = got as {
                [field: string]: Date | string | null;
              };
              const base = reportedAt ?? endedAt ?? startedAt;
              // An empty URL (a template's promise kept as "") is no recording.
              const expiry =
                typeof recordingUrl === "string" && recordingUrl !== ""
                  ? recordingExpiry(recordingUrl, base as Date | null)
                  : null;
              expect(got.recordingExpiresAt).toEqual(expiry?.expiresAt ?? null);
            }
          },
        ),
        {
          numRuns: 50,
          examples: [
            // An empty value in the last path segment leaves a trailing "/" (found by this test).
            [
              {
                template: {
                  type: "delivery",
                  method: "GET",
                  url: `${origin}/hooks/{{id}}/{{status}}/{{custom}}`,
                },
                placements: ["id", "status", "custom"].map((variable) => ({
                  variable,
                  where: "path" as const,
                  prefix: "",
                  suffix: "",
                })),
              },
              {},
              {},
            ],
          ],
        },
      );
    },
    120_000,
  );

  it("every template core refuses, the sandbox refuses with a 422 naming the same problems", async () => {
    sandbox = sandboxes.documented;
    const junk = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.integer(),
      fc.string({ maxLength: 8 }),
      fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
    );
    // A valid template with one thing wrong, or several.
    const broken = fc
      .tuple(
        validTemplate,
        fc.array(
          fc.oneof(
            fc.record({ field: fc.constant("type"), value: fc.oneof(junk, fc.constant("sms")) }),
            // A mistyped field name.
            fc.record({
              field: fc.constantFrom("metod", "URL", "formats", "header"),
              value: fc.constantFrom("GET", "json"),
            }),
            fc.record({
              field: fc.constant("method"),
              value: fc.oneof(junk, fc.constantFrom("PATCH", "DELETE", "")),
            }),
            fc.record({
              field: fc.constant("format"),
              value: fc.oneof(junk, fc.constantFrom("xml", "multipart", "FormData")),
            }),
            fc.record({
              field: fc.constant("url"),
              value: fc.oneof(
                junk,
                fc.constantFrom(
                  "{origin}/d?i={{id}}&s={{status}}&x={{nope}}",
                  "{origin}/d/{{id}}-{{status}}",
                  "{origin}/d?v={{id}}{{status}}",
                  "{origin}/d?{{id}}=1&s={{status}}",
                  "{origin}/d?s={{status}}&s={{id}}",
                  "{origin}/d?s={{status}}#{{id}}",
                  "{origin}/d?s={{status}}&i={{id}",
                  "http://{{id}}.example/d?s={{status}}",
                  "ftp://x.example/d?i={{id}}&s={{status}}",
                  "www.example.com/d?i={{id}}&s={{status}}",
                  "{origin}/d?to={{to}}",
                  "{origin}/d?i={{mobile}}&s={{status}}&m={{mid}}",
                ),
              ),
            }),
            fc.record({
              field: fc.constant("body"),
              value: fc.oneof(
                junk,
                fc.constantFrom(
                  { a: "id={{id}}" },
                  { a: "{{id}}{{status}}" },
                  { a: "{{nope}}" },
                  { "": "{{id}}" },
                  { a: 1 },
                  { a: "{{id}" },
                ),
              ),
            }),
            fc.record({
              field: fc.constant("headers"),
              value: fc.oneof(
                junk,
                fc.constantFrom(
                  { "bad name": "v" },
                  { "x-id": "{{id}}" },
                  { "x-a": "line\nbreak" },
                  { "Content-Type": "text/plain" },
                  { "X-A": "1", "x-a": "2" },
                  { "x-n": 5 },
                ),
              ),
            }),
          ),
          { minLength: 1, maxLength: 3 },
        ),
      )
      .map(([{ template }, changes]) => {
        const changed: Record<string, unknown> = { ...template };
        for (const { field, value } of changes) {
          changed[field] = typeof value === "string" ? value.replace("{origin}", origin) : value;
        }
        return changed;
      });

    await fc.assert(
      fc.asyncProperty(broken, async (template) => {
        const core = coreVerdict(template);
        const sandboxed = await registerOverHttp(template);
        if (core.ok) {
          // Only the sandbox's own rule may refuse a template core takes: it must push somewhere.
          if (sandboxed.status === 422) {
            expect(sandboxed.errors).toEqual({
              url: [expect.stringMatching(/absolute http or https URL for the sandbox/)],
            });
          } else expect(sandboxed.status).toBe(200);
          return;
        }
        expect(sandboxed.status).toBe(422);
        expect(sandboxed.errors).toEqual(byField(core.problems));
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
