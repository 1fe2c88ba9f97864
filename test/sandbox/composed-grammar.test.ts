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
import { CALL_VARIABLES, DELIVERY_VARIABLES, PROVIDER_TIME_ZONE } from "@reportkit/wire";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
  },
};
const NOT_VALUES = new Set(["type", "raw", "warnings"]);

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

// ---- Generated templates ---------------------------------------------------------------------

type Where = "path" | "query" | "body";
interface Placement {
  variable: string;
  where: Where;
  prefix: string;
  suffix: string;
}
interface Generated {
  template: Record<string, unknown>;
  placements: Placement[];
}

/** Literal text around a placeholder or in a segment: URL-safe, encoded, non-ASCII, spaces. */
const literal = fc.oneof(
  fc.stringMatching(/^[a-zA-Z0-9_.~-]{0,5}$/),
  fc.constantFrom("dlr-", ".json", "é", "a b", "%41", "x+y", "ok:"),
);
const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/);

function placementsOf(type: "delivery" | "call", method: string) {
  const names = Object.keys(type === "call" ? CALL_VARIABLES : DELIVERY_VARIABLES);
  const identity =
    type === "delivery"
      ? fc.constant(["id", "status"])
      : fc.constantFrom("id", "mid", "webhook_id").map((v) => ["status", v]);
  const places: Where[] =
    method.toUpperCase() === "GET" ? ["path", "query"] : ["path", "query", "body"];
  const place = (variable: string) =>
    fc.record({
      variable: fc.constant(variable),
      where: fc.constantFrom(...places),
      prefix: literal,
      suffix: literal,
    });
  return fc
    .tuple(identity, fc.subarray(names))
    .map(([required, more]) => [...new Set([...required, ...more])])
    .chain((variables) => fc.tuple(...variables.map(place)));
}

const validTemplate: fc.Arbitrary<Generated> = fc
  .record({
    type: fc.constantFrom("delivery" as const, "call" as const),
    method: fc.constantFrom("GET", "POST", "PUT", "get", "post", "Put", undefined),
    format: fc.constantFrom("json", "form", "urlencoded", "FORM", undefined),
  })
  .chain(({ type, method, format }) =>
    fc.record({
      type: fc.constant(type),
      method: fc.constant(method),
      format: fc.constant(format),
      placements: placementsOf(type, method ?? "POST"),
      literalSegments: fc.array(fc.stringMatching(/^[a-z0-9-]{1,6}$/), { maxLength: 2 }),
      literalQuery: fc.dictionary(key, fc.stringMatching(/^[a-z0-9]{0,4}$/), { maxKeys: 2 }),
      keys: fc.uniqueArray(key, { minLength: 20, maxLength: 20 }),
      trailingSlash: fc.boolean(),
      spaced: fc.boolean(),
      headers: fc.dictionary(
        fc.stringMatching(/^x-[a-z]{1,8}$/),
        fc.stringMatching(/^[A-Za-z0-9 ]{0,10}$/),
        { maxKeys: 2 },
      ),
    }),
  )
  .map((g) => {
    const braces = (v: string) => (g.spaced ? `{{ ${v} }}` : `{{${v}}}`);
    const keys = [...g.keys];
    const taken = new Set(Object.keys(g.literalQuery));
    const nextKey = () => {
      let next = keys.shift() as string;
      while (taken.has(next)) next = keys.shift() as string;
      taken.add(next);
      return next;
    };
    const segments = [...g.literalSegments];
    const query: string[] = Object.entries(g.literalQuery).map(([k, v]) => `${k}=${v}`);
    const body: Record<string, string> = {};
    for (const p of g.placements) {
      if (p.where === "path") segments.push(`${p.prefix}${braces(p.variable)}${p.suffix}`);
      else if (p.where === "query") {
        query.push(`${nextKey()}=${p.prefix}${braces(p.variable)}${p.suffix}`);
      } else body[nextKey()] = braces(p.variable);
    }
    const path = `/${segments.join("/")}${g.trailingSlash && segments.length > 0 ? "/" : ""}`;
    const template: Record<string, unknown> = {
      type: g.type,
      url: `${origin}${path}${query.length > 0 ? `?${query.join("&")}` : ""}`,
    };
    if (g.method !== undefined) template.method = g.method;
    if (g.format !== undefined) template.format = g.format;
    if (Object.keys(body).length > 0) template.body = body;
    if (Object.keys(g.headers).length > 0) template.headers = g.headers;
    return {
      template,
      placements: g.placements.map((p) =>
        p.where === "body" ? { ...p, prefix: "", suffix: "" } : p,
      ),
    };
  });

/** A value a report may carry in any text field: any single line, never a dot segment alone. */
const text = (maxLength: number) =>
  fc
    .string({ unit: "grapheme", maxLength })
    .filter((s) => !/[\r\n]/.test(s) && s !== "." && s !== "..");
const digits = (min: number, max: number) =>
  fc.stringMatching(new RegExp(`^[1-9][0-9]{${min - 1},${max - 1}}$`));
const status = fc.stringMatching(/^[A-Z_]{1,12}$/);

const smsOverrides = fc.record(
  {
    mobile: digits(8, 15),
    status,
    custom: text(20),
    units: fc.integer({ min: 1, max: 9 }),
    credits: fc.constantFrom("0.25", "1.5", "0", 2),
  },
  { requiredKeys: [] },
);
const callOverrides = fc.record(
  {
    to: digits(3, 15),
    from: digits(3, 15),
    bridge: digits(3, 15),
    status,
    duration: fc.integer({ min: 0, max: 7200 }),
    flowId: fc.integer({ min: 0, max: 99999 }),
    source: fc.stringMatching(/^[A-Z]{2,5}$/),
    mid: text(40).filter((s) => s.trim() !== ""),
    recordingUrl: fc.option(fc.webUrl(), { nil: null }),
  },
  { requiredKeys: [] },
);

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
            // `final` and `outcome` follow from the status, which every template carries.
            if (promised.has("status"))
              for (const field of ["final", "outcome"]) promised.add(field);
            const got = reports[0] as unknown as Record<string, unknown>;
            const expected = standard.report as unknown as Record<string, unknown>;
            for (const [field, value] of Object.entries(got)) {
              if (NOT_VALUES.has(field)) continue;
              if (promised.has(field))
                expect([field, comparable(value)]).toEqual([field, comparable(expected[field])]);
              else expect([field, value]).toEqual([field, null]);
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
