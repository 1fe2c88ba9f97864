// A ledger seeded through real reports, for the insights' tests: a PostgreSQL server of its own,
// a receiver on node:http with the Postgres inbox whose handlers call recordStatus, recordCall
// and recordOptOut, and the sandbox pushing two days of mixed traffic at it (a status of every
// reason, four operators, five circles, three campaign tags, calls, opt-outs). What was sent is
// kept, for the tests to compute what each query should answer.
import { createClient } from "@reportkit/client";
import { createReceiver } from "@reportkit/core";
import { postgresInbox, recordCall, recordOptOut, recordStatus } from "@reportkit/postgres";
import {
  createSandbox,
  type SandboxCallPayload,
  type SandboxDeliveryPayload,
  type SandboxOptOutPayload,
} from "@reportkit/sandbox";
import pg from "pg";
import { serveReceiver } from "../sandbox/servers.js";
import { type PostgresServer, startPostgresServer } from "../support/postgres-server.js";

const API_TOKEN = "insights-api-token";
const SECRET = "insights-hook-secret-0123456789";

/** The seeded days, in the provider's zone (Asia/Kolkata, UTC+5:30). */
export const DAY = "2026-11-20";
export const PREVIOUS_DAY = "2026-11-19";
/** Midnight of DAY in Asia/Kolkata. */
const DAY_START = Date.parse("2026-11-19T18:30:00Z");

/** A status of every reason of the table, DELIVRD four times as often, one pending. */
export const STATUSES = [
  "DELIVRD",
  "DELIVRD",
  "DLT-REJECTED",
  "DELIVRD",
  "MOB-OFF",
  "INVALID-SUB",
  "DELIVRD",
  "NET-ERR",
  "DNDNUMB",
  "NO-CREDITS",
  "SPAM",
  "EXPIRED",
  "TIMEOUT-DLR",
  "ENROUTE",
] as const;
export const CAMPAIGNS = ["diwali-sale", "otp", "reminder"] as const;

export interface SentMessage {
  report: SandboxDeliveryPayload;
  /** The day it was sent, in the provider's zone. */
  day: string;
  /** Submission to delivery, in seconds. */
  latency: number;
}
export interface SentCall {
  report: SandboxCallPayload;
  day: string;
}
export interface SentOptOut {
  report: SandboxOptOutPayload;
  day: string;
}

export interface SeededLedger {
  server: PostgresServer;
  /** The ledger's database, as its superuser. */
  url: string;
  pool: pg.Pool;
  messages: SentMessage[];
  calls: SentCall[];
  optOuts: SentOptOut[];
  close(): Promise<void>;
}

/** How many messages, 14 of them the day before. */
export const MESSAGES = 126;

/** Starts the server, pushes the traffic through a real receiver, and waits for every report. */
export async function seedLedger(): Promise<SeededLedger> {
  const server = await startPostgresServer();
  const store = postgresInbox({ connectionString: server.url });
  const receiver = await serveReceiver(
    createReceiver({
      secret: SECRET,
      dedupe: store,
      onDelivery: async (report, ctx) => {
        await recordStatus(ctx.tx, report);
      },
      onCall: async (report, ctx) => {
        await recordCall(ctx.tx, report);
      },
      onUnsubscribe: async (report, ctx) => {
        await recordOptOut(ctx.tx, report);
      },
    }),
  );
  const sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 50 });
  const pool = new pg.Pool({ connectionString: server.url });
  pool.on("error", () => {});
  const close = async () => {
    await sandbox.close();
    await receiver.close();
    await store.close();
    await pool.end();
    await server.close();
  };
  try {
    const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
    const hook = await client.webhooks.create({
      name: "insights",
      uri: `${receiver.url}/webhooks`,
      secret: SECRET,
    });
    const webhookId = hook.id;
    const messages: SentMessage[] = [];
    for (let i = 0; i < MESSAGES; i++) {
      // The first 14 the day before; then one every 11 minutes from 00:20, within DAY.
      const previous = i < STATUSES.length;
      const minute = 20 + (i % (MESSAGES - STATUSES.length)) * 11;
      const at = new Date(DAY_START - (previous ? 86_400_000 : 0) + minute * 60_000);
      const latency = ((i * 7) % 30) + 2;
      const sent = sandbox.sendSms({
        webhookId,
        // Indian numbers whose digits spread them over the sandbox's operators and circles.
        mobile: `919${String(100_000_000 + i * 7919).padStart(9, "0")}`,
        status: STATUSES[i % STATUSES.length] as string,
        custom: `order-${i}`,
        custom1: CAMPAIGNS[i % CAMPAIGNS.length] as string,
        units: 1 + (i % 3),
        at,
        deliverySeconds: latency,
      });
      messages.push({ report: sent.report, day: previous ? PREVIOUS_DAY : DAY, latency });
    }
    const calls: SentCall[] = [];
    const callStatuses = ["ANSWER", "ANSWER", "BUSY", "ANSWER", "NOANSWER", "ANSWER", "CANCEL"];
    for (let i = 0; i < 14; i++) {
      const status = callStatuses[i % callStatuses.length] as string;
      const previous = i % 5 === 4;
      const at = new Date(DAY_START - (previous ? 86_400_000 : 0) + (60 + i * 90) * 60_000);
      const sent = sandbox.makeCall({
        webhookId,
        to: `9198${String(10_000_000 + i * 31).padStart(8, "0")}`,
        status,
        duration: status === "ANSWER" ? 20 + i * 5 : 0,
        at,
      });
      calls.push({ report: sent.report, day: previous ? PREVIOUS_DAY : DAY });
    }
    const optOuts: SentOptOut[] = [];
    const scopes = [
      ["sender", "DEMOCO"],
      ["sender", "DEMOCO"],
      ["sender", "SHOPCO"],
      ["all", "*"],
      ["sender", "*"],
    ] as const;
    scopes.forEach(([type, value], i) => {
      const previous = i === 2;
      const at = new Date(DAY_START - (previous ? 86_400_000 : 0) + (300 + i * 60) * 60_000);
      const sent = sandbox.optOut({
        webhookId,
        receiver: `9197${String(20_000_000 + i).padStart(8, "0")}`,
        type,
        value,
        at,
      });
      optOuts.push({ report: sent.report, day: previous ? PREVIOUS_DAY : DAY });
    });
    await sandbox.settled();
    const undelivered = sandbox.attempts().filter((a) => a.outcome !== "delivered");
    if (undelivered.length > 0) {
      throw new Error(
        `seedLedger: ${undelivered.length} pushes were not taken, e.g. ${JSON.stringify(undelivered[0]?.responseBody)}`,
      );
    }
    return { server, url: server.url, pool, messages, calls, optOuts, close };
  } catch (error) {
    await close();
    throw error;
  }
}
