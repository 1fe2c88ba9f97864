// The failure journal keeps every kind of push by its kind, the same against every store that
// keeps one (Postgres, Redis): an opt-out and another channel's event whose handlers failed,
// listed with `reportkit journal list --kind` and sent again, each kind on its own, with
// `reportkit replay --kind` once the handlers are fixed, over real HTTP to an Express receiver.
import type { Server } from "node:http";
import type { EventReport, UnsubscribeReport } from "@reportkit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROVIDER_SAMPLES } from "../fixtures/provider-samples.js";
import { TOKEN } from "../fixtures/samples.js";
import { type JournalSetup, reportkit, serveOn } from "./journal-cases.js";

/** A page's sample, byte for byte, with a fresh id in place of `id` (each run its own entries). */
function sampleWithFreshId(name: string, id: string): { body: string; fresh: string } {
  const text = PROVIDER_SAMPLES.find((s) => s.name === name)?.text ?? "";
  const fresh = crypto.randomUUID();
  expect(text).toContain(id);
  return { body: text.replace(id, fresh), fresh };
}

export function runKindCases(name: string, open: () => Promise<JournalSetup>): void {
  describe(`the failure journal in ${name}, by kind`, () => {
    let setup: JournalSetup;
    let origin: string;
    let server: Server;
    let failing = true;
    const optOuts: UnsubscribeReport[] = [];
    const events: EventReport[] = [];

    beforeAll(async () => {
      setup = await open();
      ({ server, origin } = await serveOn(setup, {
        onUnsubscribe: (report) => {
          if (failing) throw new Error("the suppression list is down");
          optOuts.push(report);
        },
        onEvent: (report) => {
          if (failing) throw new Error("the chat inbox is down");
          events.push(report);
        },
      }));
    });
    afterAll(async () => {
      await new Promise((resolve) => server?.close(resolve));
      await setup?.close();
    });

    const send = (body: string) =>
      fetch(`${origin}/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body,
      });
    const statusOf = async (key: string) =>
      (await setup.entries()).find((e) => e.key === key)?.status;

    it("keeps an opt-out and an event by their kinds; journal list --kind and replay --kind take each", async () => {
      const optOut = sampleWithFreshId(
        "sms:unsubscription",
        "d105a1ef-6728-4563-8b85-7f5356c8axxx",
      );
      const event = sampleWithFreshId(
        "whatsapp:message:status",
        "a418d672-9781-4d97-b517-a56f7d95ad8a",
      );
      const optOutKey = `unsubscribe:${optOut.fresh}`;
      const eventKey = `event:whatsapp:message:status:${event.fresh}:sent|delivered|read|failed|deleted`;
      failing = true;
      expect((await send(optOut.body)).status).toBe(500);
      expect((await send(event.body)).status).toBe(500);
      const kept = await setup.entries();
      expect(kept.find((e) => e.key === optOutKey)).toMatchObject({
        kind: "unsubscribe",
        status: "failed",
        request: { body: optOut.body },
      });
      expect(kept.find((e) => e.key === eventKey)).toMatchObject({
        kind: "event",
        status: "failed",
        request: { body: event.body },
      });

      const keysOf = async (...args: string[]) => {
        const run = await reportkit("journal", "list", "--db", setup.url, "--json", ...args);
        expect(run.code, run.stderr).toBe(0);
        return (JSON.parse(run.stdout).data as { key: string; kind: string }[])
          .filter((e) => e.key === optOutKey || e.key === eventKey)
          .map((e) => [e.key, e.kind]);
      };
      expect(await keysOf("--kind", "unsubscribe")).toEqual([[optOutKey, "unsubscribe"]]);
      expect(await keysOf("--kind", "event")).toEqual([[eventKey, "event"]]);
      expect(await keysOf("--kind", "delivery,call")).toEqual([]);
      expect(await keysOf("--kind", "event,unsubscribe", "--status", "failed")).toEqual([
        [optOutKey, "unsubscribe"],
        [eventKey, "event"],
      ]);
      const table = await reportkit("journal", "list", "--db", setup.url, "--kind", "unsubscribe");
      expect(table.stdout).toMatch(new RegExp(`${optOutKey}\\s+unsubscribe\\s+failed\\s+1\\s`));
      const wrong = await reportkit("journal", "list", "--db", setup.url, "--kind", "optout");
      expect([wrong.code, wrong.stderr]).toEqual([
        1,
        'reportkit: --kind must be delivery, call, unsubscribe, event (comma-separated for several); got "optout".\n',
      ]);

      // Fixed: the opt-out alone is sent again, then the event.
      failing = false;
      const replay = (kind: string) =>
        reportkit("replay", "--db", setup.url, "--to", origin, "--secret", TOKEN, "--kind", kind);
      const optOutRun = await replay("unsubscribe");
      expect(optOutRun.code, optOutRun.stderr).toBe(0);
      expect(optOutRun.stdout).toContain(`${optOutKey}  processed\n`);
      expect(optOutRun.stdout).not.toContain(eventKey);
      expect(optOuts.map((r) => [r.id, r.receiver, r.scope, r.value])).toEqual([
        [optOut.fresh, "917002088xxx", "sender", "Demo12"],
      ]);
      expect(events).toEqual([]);
      expect(await statusOf(optOutKey)).toBe("resolved");
      expect(await statusOf(eventKey)).toBe("failed");

      const eventRun = await replay("event");
      expect(eventRun.code, eventRun.stderr).toBe(0);
      expect(eventRun.stdout).toContain(`${eventKey}  processed\n`);
      expect(events.map((r) => [r.event, r.id, r.payload.channel])).toEqual([
        ["whatsapp:message:status", event.fresh, "whatsapp"],
      ]);
      expect(await statusOf(eventKey)).toBe("resolved");
    });
  });
}
