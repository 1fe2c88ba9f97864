// The insights' queries against a ledger the sandbox seeded through a real receiver (seed-rig.ts):
// each answer checked against what was sent, computed here from the pushed reports and wire's
// status table: messages by day and outcome, the delivery rate by operator, circle and tag,
// failures by reason and status, latency percentiles, credits, calls, opt-outs; filters, days
// in another zone, a range given as instants, and the errors of a wrong query.
import { classifyCallStatus, classifyDeliveryStatus } from "@reportkit/core";
import {
  callsByDay,
  creditsByDay,
  deliveryLatency,
  deliveryRateBy,
  failuresBy,
  type InsightsQuery,
  messageSummary,
  messagesByDay,
  optOutsByDay,
  optOutsBySender,
  readInsights,
} from "@reportkit/postgres/insights";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requirePostgresServer } from "../support/postgres-server.js";
import { DAY, PREVIOUS_DAY, type SeededLedger, type SentMessage, seedLedger } from "./seed-rig.js";

const RANGE = { from: PREVIOUS_DAY, to: DAY } as const;

/** Messages by outcome and the delivery rate, as the queries define them. */
function outcomes(messages: readonly SentMessage[]) {
  const count = (outcome: string) =>
    messages.filter((m) => classifyDeliveryStatus(m.report.status).outcome === outcome).length;
  const delivered = count("delivered");
  const pending = count("pending");
  const settled = messages.length - pending;
  return {
    messages: messages.length,
    delivered,
    undelivered: count("undelivered"),
    pending,
    unknown: count("unknown"),
    deliveryRate: settled > 0 ? delivered / settled : null,
  };
}

/** percentile_disc: the first value whose cumulative share reaches p. */
function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] as number;
}

const credits = (messages: readonly SentMessage[]) =>
  messages.reduce((sum, m) => sum + Number(m.report.credits) * 10_000, 0) / 10_000;

describe.runIf(requirePostgresServer("test/insights/queries.test.ts"))(
  "the insights' queries",
  () => {
    let ledger: SeededLedger;
    let messages: SentMessage[];
    const onDay = (day: string) => messages.filter((m) => m.day === day);

    beforeAll(async () => {
      ledger = await seedLedger();
      messages = ledger.messages;
    });
    afterAll(async () => {
      await ledger?.close();
    });

    it("counts each day's messages by outcome, every day of the range", async () => {
      const days = await messagesByDay(ledger.pool, { from: "2026-11-18", to: "2026-11-21" });
      expect(days).toEqual([
        { day: "2026-11-18", ...outcomes([]) },
        { day: PREVIOUS_DAY, ...outcomes(onDay(PREVIOUS_DAY)) },
        { day: DAY, ...outcomes(onDay(DAY)) },
        { day: "2026-11-21", ...outcomes([]) },
      ]);
      // Every reason of the table was sent, and each kind of outcome is there.
      expect(days[2]).toMatchObject({
        delivered: expect.any(Number),
        pending: expect.any(Number),
        unknown: expect.any(Number),
      });
      expect(Math.min(...Object.values(outcomes(onDay(DAY))).map(Number))).toBeGreaterThan(0);
      expect(await messageSummary(ledger.pool, RANGE)).toMatchObject(outcomes(messages));
    });

    it("gives the delivery rate by operator, circle and campaign tag, most messages first", async () => {
      for (const [dimension, name, code] of [
        ["provider", "provider", "provider_code"],
        ["region", "region", "region_code"],
        ["custom1", "custom1", null],
      ] as const) {
        const groups = new Map<string, SentMessage[]>();
        for (const m of messages) {
          const key = String(m.report[name]);
          groups.set(key, [...(groups.get(key) ?? []), m]);
        }
        const expected = [...groups.entries()]
          .map(([key, group]) => ({
            name: key,
            code: code === null ? null : String(group[0]?.report[code]),
            ...outcomes(group),
          }))
          .sort((a, b) => b.messages - a.messages || (a.name < b.name ? -1 : 1));
        const answered = await deliveryRateBy(ledger.pool, dimension, RANGE);
        expect(answered, dimension).toEqual(expected);
        expect(answered.length, dimension).toBeGreaterThanOrEqual(3);
      }
      const top = await deliveryRateBy(ledger.pool, "region", RANGE, { limit: 2 });
      expect(top).toHaveLength(2);
    });

    it("counts failures by reason and by status, with how many a resend may still deliver", async () => {
      const failed = messages.filter((m) =>
        ["undelivered", "unknown"].includes(classifyDeliveryStatus(m.report.status).outcome),
      );
      const by = (key: (m: SentMessage) => string) => {
        const groups = new Map<string, SentMessage[]>();
        for (const m of failed) groups.set(key(m), [...(groups.get(key(m)) ?? []), m]);
        return groups;
      };
      const transient = (group: SentMessage[]) =>
        group.filter((m) => classifyDeliveryStatus(m.report.status).transient).length;
      const reasons = [...by((m) => String(classifyDeliveryStatus(m.report.status).reason))]
        .map(([reason, group]) => ({
          reason,
          status: null,
          messages: group.length,
          transient: transient(group),
        }))
        .sort((a, b) => b.messages - a.messages || (a.reason < b.reason ? -1 : 1));
      const byReason = await failuresBy(ledger.pool, "reason", RANGE);
      expect(byReason).toEqual(reasons);
      // Every reason class of the table.
      expect(byReason.map((r) => r.reason).sort()).toEqual(
        [
          "account",
          "content",
          "dlt",
          "expired",
          "handset",
          "network",
          "recipient",
          "unknown",
        ].sort(),
      );
      const statuses = [...by((m) => m.report.status)]
        .map(([status, group]) => ({
          reason: classifyDeliveryStatus(status).reason,
          status,
          messages: group.length,
          transient: transient(group),
        }))
        .sort((a, b) => b.messages - a.messages || (a.status < b.status ? -1 : 1));
      expect(await failuresBy(ledger.pool, "status", RANGE)).toEqual(statuses);
    });

    it("gives delivery latency percentiles by day and by operator", async () => {
      const latency = (group: readonly SentMessage[]) => {
        const delivered = group.filter((m) => m.report.status === "DELIVRD").map((m) => m.latency);
        return {
          messages: delivered.length,
          p50: percentile(delivered, 0.5),
          p90: percentile(delivered, 0.9),
          p99: percentile(delivered, 0.99),
        };
      };
      expect(await deliveryLatency(ledger.pool, "day", RANGE)).toEqual([
        { day: PREVIOUS_DAY, ...latency(onDay(PREVIOUS_DAY)) },
        { day: DAY, ...latency(onDay(DAY)) },
      ]);
      const byProvider = await deliveryLatency(ledger.pool, "provider", RANGE);
      for (const row of byProvider) {
        expect(row, String(row.name)).toEqual({
          name: row.name,
          code: expect.any(String),
          ...latency(messages.filter((m) => m.report.provider === row.name)),
        });
      }
      expect(byProvider.reduce((sum, row) => sum + row.messages, 0)).toBe(
        latency(messages).messages,
      );
    });

    it("gives each day's credits, and credits per delivered message", async () => {
      const day = (d: string) => {
        const group = onDay(d);
        const { messages: count, delivered } = outcomes(group);
        const charged = credits(group);
        return {
          day: d,
          messages: count,
          delivered,
          units: group.reduce((sum, m) => sum + m.report.units, 0),
          credits: charged.toFixed(4),
          creditsPerDelivered: (charged / delivered).toFixed(4),
        };
      };
      expect(await creditsByDay(ledger.pool, RANGE)).toEqual([day(PREVIOUS_DAY), day(DAY)]);
    });

    it("counts each day's calls, the answered ones and their durations", async () => {
      const day = (d: string) => {
        const calls = ledger.calls.filter((c) => c.day === d);
        const answered = calls.filter(
          (c) => classifyCallStatus(c.report.status).outcome === "answered",
        );
        const unanswered = calls.length - answered.length;
        const duration = answered.reduce((sum, c) => sum + Number(c.report.duration), 0);
        return {
          day: d,
          calls: calls.length,
          answered: answered.length,
          unanswered,
          unknown: 0,
          answerRate: calls.length === 0 ? null : answered.length / calls.length,
          duration,
          averageDuration:
            answered.length === 0 ? null : Math.round((duration / answered.length) * 10) / 10,
          billing: 0,
        };
      };
      expect(await callsByDay(ledger.pool, RANGE)).toEqual([day(PREVIOUS_DAY), day(DAY)]);
    });

    it("counts opt-outs by day and by the sender id opted out of", async () => {
      const day = (d: string) => {
        const optOuts = ledger.optOuts.filter((o) => o.day === d);
        return {
          day: d,
          optOuts: optOuts.length,
          allSenders: optOuts.filter((o) => o.report.type === "all" || o.report.value === "*")
            .length,
        };
      };
      expect(await optOutsByDay(ledger.pool, RANGE)).toEqual([day(PREVIOUS_DAY), day(DAY)]);
      expect(await optOutsBySender(ledger.pool, RANGE)).toEqual([
        { type: "sender", value: "DEMOCO", optOuts: 2 },
        { type: "all", value: "*", optOuts: 1 },
        { type: "sender", value: "*", optOuts: 1 },
        { type: "sender", value: "SHOPCO", optOuts: 1 },
      ]);
    });

    it("filters by operator, circle and tag, alone and together", async () => {
      const jio = messages.filter((m) => m.report.provider === "Jio");
      const jioOtp = jio.filter((m) => m.report.custom1 === "otp");
      const mumbai = messages.filter((m) => m.report.region === "Mumbai");
      expect(jio.length).toBeGreaterThan(0);
      expect(jioOtp.length).toBeGreaterThan(0);
      const summary = (query: InsightsQuery) => messageSummary(ledger.pool, query);
      expect(await summary({ ...RANGE, provider: "Jio" })).toMatchObject(outcomes(jio));
      expect(await summary({ ...RANGE, provider: "Jio", custom1: "otp" })).toMatchObject(
        outcomes(jioOtp),
      );
      expect(await summary({ ...RANGE, region: "Mumbai" })).toMatchObject(outcomes(mumbai));
      expect(await summary({ ...RANGE, custom: "order-20" })).toMatchObject({ messages: 1 });
      expect(await summary({ ...RANGE, provider: "Nobody" })).toMatchObject({
        messages: 0,
        deliveryRate: null,
        credits: "0.0000",
        creditsPerDelivered: null,
      });
      const byDay = await messagesByDay(ledger.pool, { ...RANGE, provider: "Jio" });
      expect(byDay.map((d) => d.messages)).toEqual([
        jio.filter((m) => m.day === PREVIOUS_DAY).length,
        jio.filter((m) => m.day === DAY).length,
      ]);
    });

    it("reads a day in the zone given, and a range given as instants", async () => {
      // In UTC, DAY's messages sent before 05:30 IST fall on the day before.
      const utc = await messagesByDay(ledger.pool, { ...RANGE, timeZone: "UTC" });
      const utcDay = (m: SentMessage) => {
        const sent = Date.parse(`${m.report.sent_time.replace(" ", "T")}+05:30`);
        return new Date(sent).toISOString().slice(0, 10);
      };
      // The range is PREVIOUS_DAY..DAY in UTC now: messages sent before its start are out.
      expect(utc.map((d) => [d.day, d.messages])).toEqual([
        [PREVIOUS_DAY, messages.filter((m) => utcDay(m) === PREVIOUS_DAY).length],
        [DAY, messages.filter((m) => utcDay(m) === DAY).length],
      ]);
      // The first three hours of DAY, as instants.
      const start = Date.parse("2026-11-19T18:30:00Z");
      const early = messages.filter((m) => {
        const sent = Date.parse(`${m.report.sent_time.replace(" ", "T")}+05:30`);
        return sent >= start && sent < start + 3 * 3_600_000;
      });
      expect(early.length).toBeGreaterThan(0);
      const summary = await messageSummary(ledger.pool, {
        from: new Date(start),
        to: new Date(start + 3 * 3_600_000),
      });
      expect(summary).toMatchObject(outcomes(early));
    });

    it("reads everything at once, and names what is wrong with a query", async () => {
      const all = await readInsights(ledger.pool, RANGE, { tagField: "custom1" });
      expect(all.summary).toMatchObject(outcomes(messages));
      expect(all.query).toEqual({ ...RANGE, timeZone: "Asia/Kolkata" });
      expect(all.deliveryRateByTag.map((r) => r.name).sort()).toEqual([
        "diwali-sale",
        "otp",
        "reminder",
      ]);
      for (const [key, value] of Object.entries(all)) {
        if (Array.isArray(value)) expect(value.length, key).toBeGreaterThan(0);
      }
      await expect(messageSummary(ledger.pool, { from: DAY, to: PREVIOUS_DAY })).rejects.toThrow(
        "messageSummary: `to` must be after `from` (a day `to` is included).",
      );
      await expect(messageSummary(ledger.pool, { from: "2026-02-30", to: DAY })).rejects.toThrow(
        /^messageSummary: `from` must be a day, "yyyy-mm-dd" \(in the query's zone\), or a valid Date; got "2026-02-30"\.$/,
      );
      await expect(
        messageSummary(ledger.pool, { ...RANGE, timeZone: "Mars/Olympus" }),
      ).rejects.toThrow(/^messageSummary: `timeZone` must be an IANA time zone/);
      await expect(
        messageSummary(ledger.pool, { ...RANGE, provider: "x'; DROP TABLE reportkit_calls; --" }),
      ).resolves.toMatchObject({ messages: 0 });
      await expect(callsByDay(ledger.pool, { ...RANGE, provider: "Jio" } as never)).rejects.toThrow(
        "callsByDay: `provider` filters messages; calls and opt-outs have none.",
      );
      await expect(deliveryRateBy(ledger.pool, "mobile" as never, RANGE)).rejects.toThrow(
        /^deliveryRateBy: the dimension must be one of provider, region/,
      );
    });
  },
);
