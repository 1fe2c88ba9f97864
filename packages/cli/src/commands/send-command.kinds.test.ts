// `reportkit send unsubscribe|event` and `send call --source C2C`: the real binary (dist/cli.js)
// pushing an opt-out, another event and a Click2Call report, as the provider's pages show them,
// to a reportkit receiver on node:http whose handler of each kind gets it, typed.
import {
  type CallReport,
  createReceiver,
  type EventReport,
  type UnsubscribeReport,
} from "@reportkit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Running, serveReceiver } from "../../../../test/sandbox/servers.js";
import { buildCli, reportkit } from "../../../../test/support/reportkit-cli.js";

const SECRET = "send-kinds-secret-8127";

let receiver: Running;
let url: string;
const calls: CallReport[] = [];
const optOuts: UnsubscribeReport[] = [];
const events: EventReport[] = [];

beforeAll(async () => {
  buildCli();
  receiver = await serveReceiver(
    createReceiver({
      secret: SECRET,
      logger: false,
      onCall: (report) => {
        calls.push(report);
      },
      onUnsubscribe: (report) => {
        optOuts.push(report);
      },
      onEvent: (report) => {
        events.push(report);
      },
    }),
  );
  url = `${receiver.url}/webhooks`;
});
afterAll(() => receiver.close());

const send = (...args: string[]) => reportkit(["send", ...args, "--to", url, "--secret", SECRET]);

describe("reportkit send, every kind", () => {
  it("pushes an opt-out (sms:unsubscription by default, or --event voice:unsubscription) to onUnsubscribe", async () => {
    const sms = await send("unsubscribe", "--receiver", "919812345678", "--value", "SHOPIN");
    expect(sms.stderr).toBe("");
    expect(sms.code).toBe(0);
    expect(sms.stdout).toMatch(/^unsubscribe sms:unsubscription [0-9a-f-]{36} → http:\/\/127/);
    expect(sms.stdout).toMatch(/ {2}200 {2}delivered\n$/);
    const voice = await send("unsubscribe", "--event", "voice:unsubscription", "--type", "all");
    expect(voice.code).toBe(0);
    expect(optOuts.map((r) => [r.receiver, r.scope, r.value])).toEqual([
      ["919812345678", "sender", "SHOPIN"],
      ["919876543210", "all", "*"],
    ]);
  });

  it("pushes another channel's event, a contact update and a smart-link visit to onEvent", async () => {
    const status = await send("event", "--status", "read", "--json");
    expect(status.code, status.stderr).toBe(0);
    const out = JSON.parse(status.stdout);
    expect(out).toMatchObject({
      outcome: "delivered",
      report: { event: "whatsapp:message:status", payload: { status: "read" } },
      attempts: [{ report_type: "event", event: "whatsapp:message:status" }],
    });
    const contact = ["--event", "contacts:subscriber:subscription", "--status", "created"];
    expect((await send("event", ...contact)).code).toBe(0);
    const visit = ["--event", "link:visit", "--mobile", "919812345678"];
    expect((await send("event", ...visit)).code).toBe(0);
    expect(events.map((e) => [e.event, e.status])).toEqual([
      ["whatsapp:message:status", "read"],
      ["contacts:subscriber:subscription", "Subscriber created successfully"],
      ["link:visit", null],
    ]);
    expect(events[2]?.payload.mobile).toBe("919812345678");
  });

  it("pushes a Click2Call report (--source C2C), its --status the second leg's", async () => {
    const run = await send(
      "call",
      "--source",
      "C2C",
      "--to-number",
      "flow:220",
      "--status",
      "BUSY",
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^call report \(Click2Call\) [0-9a-f-]{36} → /);
    expect(calls.map((r) => [r.source, r.flowId, r.status, r.status2, r.billing])).toEqual([
      ["C2C", 220, "BUSY", "BUSY", 0],
    ]);
  });

  it("says what is wrong before sending: an event of another kind, a source, a field the event lacks", async () => {
    const wrongKind = await send("unsubscribe", "--event", "whatsapp:message:status");
    expect([wrongKind.code, wrongKind.stderr]).toEqual([
      1,
      'reportkit: --event of unsubscribe must be sms:unsubscription, whatsapp:unsubscription, rcs:unsubscription, voice:unsubscription, viber:unsubscription; got "whatsapp:message:status".\n',
    ]);
    const source = await send("call", "--source", "IVR");
    expect(source.stderr).toBe('reportkit: --source must be OBD or C2C, got "IVR".\n');
    const foreign = await send("event", "--event", "vmn:message:in", "--receiver", "919812345678");
    expect(foreign.stderr).toBe(
      "reportkit: The receiver field is not part of a vmn:message:in push; it takes from, to, text.\n",
    );
  });
});
