// The real `reportkit reconcile` binary (dist/cli.js, built here with tsc -b) against a stand-in
// for the provider's Pull DLR API that pages as its page shows (3 pages of 100), and a
// receiver (Express, the memory store or the Postgres inbox) that has already processed part of
// the day by pushes: every final status is processed exactly once, pending ones never,
// already processed ones come back as duplicates, and a second run processes nothing.
import { execFile, execFileSync } from "node:child_process";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DedupeStore } from "@reportkit/core/adapter";
import { webhookReceiver } from "@reportkit/express";
import { type PostgresInbox, postgresInbox } from "@reportkit/postgres";
import express from "express";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";
import {
  type PullApiServer,
  type PulledMessage,
  pulledMessage,
  startPullApiServer,
} from "../support/pull-api-server.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(ROOT, "packages/cli/dist/cli.js");
const API_TOKEN = "reconcile-api-token-3141";
const SECRET = "reconcile-webhook-secret-2718";
const DAY = "2024-06-24";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function reportkit(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const clean = { ...process.env, ...env };
  for (const key of [
    "REPORTKIT_SECRET",
    "REPORTKIT_TOKEN",
    "REPORTKIT_BASE_URL",
    "REPORTKIT_API_TOKEN",
  ]) {
    if (!(key in env)) delete clean[key];
  }
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: ROOT, env: clean, timeout: 45_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The summary: the JSON object on the last line of stdout. */
function summaryOf(run: Run): Record<string, unknown> {
  const lines = run.stdout.trimEnd().split("\n");
  return JSON.parse(lines.at(-1) ?? "");
}

// 250 messages of one day: finals of several kinds, and some not final yet.
const PENDING = ["AWAITING-DLR", "ENROUTE", "ACCEPTD"];
function dayOfMessages(): PulledMessage[] {
  const statuses = [
    "DELIVRD",
    "UNDELIV",
    "AWAITING-DLR",
    "EXPIRED",
    "DELIVRD",
    "DLT-TEMPLATE-MISMATCH",
    "ENROUTE",
    "DELIVRD",
    "TIMEOUT-DLR",
    "ACCEPTD",
  ];
  return Array.from({ length: 250 }, (_, i) => {
    const status = statuses[i % statuses.length] as string;
    return pulledMessage({
      id: `${crypto.randomUUID()}:1`,
      status,
      mobile: `9198${String(10_000_000 + i)}`,
      custom: i % 4 === 0 ? `order-${i}` : "",
      submitted_at: `${DAY} 10:${String(i % 60).padStart(2, "0")}:00`,
      delivered_at: status === "DELIVRD" ? `${DAY} 10:${String(i % 60).padStart(2, "0")}:05` : "",
    });
  });
}

/** The provider's own push of a message (field-notes: no unix fields, deliv_time when delivered). */
function pushOf(m: PulledMessage): Record<string, unknown> {
  return {
    id: m.id,
    mobile: m.mobile,
    status: m.status,
    credits: "1.0000",
    units: m.units,
    ...(m.delivered_at === "" ? {} : { deliv_time: m.delivered_at }),
    sent_time: m.submitted_at,
    submit_time: m.submitted_at,
    cid: "6789",
    ...(m.custom === "" ? {} : { custom: m.custom }),
  };
}

interface Setup {
  /** The receiver's store (undefined: the default, in memory). */
  store(): DedupeStore | undefined;
  /** Records what the handler got (inside the store's transaction, for the Postgres inbox). */
  record(id: string, status: string, reconciled: string | null, ctx: unknown): Promise<void>;
  handled(): Promise<{ id: string; status: string; reconciled: string | null }[]>;
  close(): Promise<void>;
}

function reconcileCases(name: string, open: () => Promise<Setup>): void {
  describe(`reportkit reconcile, the receiver's store ${name}`, () => {
    let setup: Setup;
    let api: PullApiServer;
    let server: Server;
    let receiverUrl: string;
    const messages = dayOfMessages();
    const finals = messages.filter((m) => !PENDING.includes(m.status));
    const env = () => ({ REPORTKIT_BASE_URL: api.baseUrl, REPORTKIT_API_TOKEN: API_TOKEN });

    beforeAll(async () => {
      // Up to date after `pnpm test`'s typecheck; builds the CLI and what it imports otherwise.
      execFileSync(join(ROOT, "node_modules/.bin/tsc"), ["-b", "packages/cli"], {
        cwd: ROOT,
        stdio: "inherit",
      });
      setup = await open();
      api = await startPullApiServer({ apiToken: API_TOKEN, messages: () => messages });
      const app = express();
      app.use(
        webhookReceiver({
          secret: SECRET,
          dedupe: setup.store(),
          logger: false,
          onDelivery: (report, ctx) =>
            setup.record(report.id, report.status, ctx.headers.get("x-reportkit-reconciled"), ctx),
        }),
      );
      server = await new Promise((resolve) => {
        const s = app.listen(0, "127.0.0.1", () => resolve(s));
      });
      receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server?.close(resolve));
      await api?.close();
      await setup?.close();
    });

    it("processes each final status once, skips pending ones, answers the pushed ones as duplicates", async () => {
      // Part of the day reached the receiver as pushes, before the outage.
      const pushed = finals.filter((_, i) => i % 3 === 0);
      for (const m of pushed) {
        const reply = await fetch(receiverUrl, {
          method: "POST",
          headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
          body: JSON.stringify(pushOf(m)),
        });
        expect(await reply.text()).toBe('{"ok":true}');
      }

      const run = await reportkit(
        ["reconcile", "--date", DAY, "--to", receiverUrl, "--secret", SECRET, "--json"],
        env(),
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trimEnd().split("\n")).toHaveLength(1);
      expect(summaryOf(run)).toEqual({
        kind: "delivery",
        query: { date: DAY },
        dryRun: false,
        complete: true,
        pages: 3,
        pulled: 250,
        pending: messages.length - finals.length,
        final: finals.length,
        processed: finals.length - pushed.length,
        duplicate: pushed.length,
        queued: 0,
        failed: 0,
        failures: [],
      });
      // Three pages, by number, each with the day.
      expect(api.requests).toEqual(
        [1, 2, 3].map((n) => `GET /api/v2/sms/status?date=${DAY}&page=${n}`),
      );

      const handled = await setup.handled();
      // Every final message once, with its final status; no pending one.
      expect(handled.map((h) => `${h.id}:${h.status}`).sort()).toEqual(
        finals.map((m) => `${m.id}:${m.status}`).sort(),
      );
      // The reconciled ones are marked so, the pushes are not.
      const pushedIds = new Set(pushed.map((m) => m.id));
      for (const h of handled) expect(h.reconciled).toBe(pushedIds.has(h.id) ? null : "sms/status");
      expect(`${run.stdout}${run.stderr}`).not.toContain(SECRET);
      expect(`${run.stdout}${run.stderr}`).not.toContain(API_TOKEN);

      // A second run finds everything recorded.
      const again = await reportkit(
        ["reconcile", "--date", DAY, "--to", receiverUrl, "--secret", SECRET, "--json"],
        env(),
      );
      expect(again.code, again.stderr).toBe(0);
      expect(summaryOf(again)).toMatchObject({ processed: 0, duplicate: finals.length, failed: 0 });
      expect(await setup.handled()).toHaveLength(finals.length);
    });

    it("a wrong API token is exit 1 with a clear message, and nothing is sent", async () => {
      const before = (await setup.handled()).length;
      const requests = api.requests.length;
      const run = await reportkit(
        ["reconcile", "--date", DAY, "--to", receiverUrl, "--secret", SECRET],
        {
          ...env(),
          REPORTKIT_API_TOKEN: "wrong-api-token-0000",
        },
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        "reportkit: GET sms/status failed with 401 Unauthorized: Unauthenticated. Check the access token: it must be the account's current API token, sent as Bearer.\n",
      );
      expect(run.stdout).toBe("");
      expect(api.requests.length).toBe(requests + 1);
      expect((await setup.handled()).length).toBe(before);
    });
  });
}

reconcileCases("in memory (the default)", async () => {
  const handled: { id: string; status: string; reconciled: string | null }[] = [];
  return {
    store: () => undefined,
    async record(id, status, reconciled) {
      handled.push({ id, status, reconciled });
    },
    handled: async () => [...handled],
    close: async () => {},
  };
});

describe.runIf(requirePostgresServer("reconcile-cli.test.ts"))("", () => {
  reconcileCases("the Postgres inbox: the user's rows show each message once", async () => {
    const server: PostgresServer = await startPostgresServer();
    const admin = new pg.Pool({ connectionString: server.url });
    admin.on("error", () => {});
    await admin.query(
      "CREATE TABLE deliveries (report_id text NOT NULL, status text NOT NULL, reconciled text)",
    );
    let inbox: PostgresInbox | undefined;
    return {
      store() {
        inbox = postgresInbox({ connectionString: server.url });
        return inbox;
      },
      async record(id, status, reconciled, ctx) {
        const { tx } = ctx as { tx: pg.PoolClient };
        await tx.query("INSERT INTO deliveries VALUES ($1, $2, $3)", [id, status, reconciled]);
      },
      async handled() {
        const rows = await admin.query(
          "SELECT report_id AS id, status, reconciled FROM deliveries ORDER BY report_id",
        );
        // Each message once: no report_id twice.
        const twice = await admin.query(
          "SELECT report_id FROM deliveries GROUP BY report_id HAVING count(*) > 1",
        );
        expect(twice.rows).toEqual([]);
        return rows.rows;
      },
      async close() {
        await inbox?.close();
        await admin.end();
        await server.close();
      },
    };
  });
});
