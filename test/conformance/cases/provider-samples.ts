// Every body the provider's pages show it pushing, byte for byte (trailing commas, a string left
// open): each is one kind, taken (200) and handed to the handler of that kind, typed.
import { expect } from "vitest";
import { PROVIDER_SAMPLES } from "../../fixtures/provider-samples.js";
import type { Call } from "../setup.js";
import { JSON_HEADERS } from "./shared.js";
import type { ConformanceCase } from "./types.js";

const report = (fields: Record<string, unknown>) => expect.objectContaining(fields);

/** What each sample must reach, by its name in the fixture. */
const REACHES: Record<string, Call> = {
  "Click2Call report": {
    handler: "onCall",
    report: report({
      type: "call",
      mid: null,
      webhookId: null,
      source: "C2C",
      to: "918867131234",
      status: "COMPLETED",
      billing: 23,
      status1: "RECEIVED",
      status2: "ANSWER",
      hangupBy: "caller",
      reportedAt: "2022-05-25T05:12:35.000Z",
    }),
  },
  "outbound-dial (OBD) report": {
    handler: "onCall",
    report: report({ type: "call", mid: "1234-1333-XXXXX", source: "OBD", flowId: 123 }),
  },
  "voice:message:out": {
    handler: "onCall",
    report: report({ type: "call", mid: "1234-1333-XXXXX", status: "ANSWER", duration: 23 }),
  },
  "smart-link visit": {
    handler: "onEvent",
    report: report({
      type: "event",
      event: "link:visit",
      id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
    }),
  },
  "sms:message:status": {
    handler: "onDelivery",
    report: report({ type: "delivery", status: "DELIVRD", units: 2, custom: "9882XXXX" }),
  },
};
for (const name of ["sms", "whatsapp", "rcs", "voice", "viber"].map((c) => `${c}:unsubscription`)) {
  REACHES[name] = { handler: "onUnsubscribe", report: report({ type: "unsubscribe" }) };
}
REACHES["sms:unsubscription"] = {
  handler: "onUnsubscribe",
  report: report({
    type: "unsubscribe",
    id: "d105a1ef-6728-4563-8b85-7f5356c8axxx",
    receiver: "917002088xxx",
    scope: "sender",
    value: "Demo12",
    createdAt: "2023-07-08T12:52:54.000Z",
    status: "Unsubscriber created successfully",
  }),
};

/** An event's report: its name as the envelope (or the provider's name for a bare body) says. */
function eventCall(name: string): Call {
  const event = name.replace(/ \(\d\)$/, "");
  return { handler: "onEvent", report: report({ type: "event", event }) };
}

export const PROVIDER_SAMPLE_CASES: ConformanceCase[] = [
  ...PROVIDER_SAMPLES.map(
    (sample): ConformanceCase => ({
      name: `the provider's ${sample.name} (${sample.page}), byte for byte: 200, to its handler`,
      requests: [{ method: "POST", url: "/webhooks", headers: JSON_HEADERS, body: sample.text }],
      expect: { status: 200, calls: [REACHES[sample.name] ?? eventCall(sample.name)] },
    }),
  ),
  {
    name: "with only onDelivery: an opt-out is acknowledged (200), and onDelivery does not run",
    setup: { handlers: "delivery-only" },
    requests: [
      {
        method: "POST",
        url: "/webhooks",
        headers: JSON_HEADERS,
        body: (PROVIDER_SAMPLES.find((s) => s.name === "sms:unsubscription") ?? { text: "" }).text,
      },
    ],
    expect: { status: 200, calls: [] },
  },
];
