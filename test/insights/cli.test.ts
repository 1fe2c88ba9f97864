// `reportkit insights --format json|text` against a ledger the sandbox seeded through a real
// receiver, as a role that may only SELECT (the session read-only as well); the alert check's
// exit codes over the last hour; and never the database URL's password, in any output.
import { randomUUID } from "node:crypto";
import { parseReport } from "@reportkit/core";
import { recordStatus } from "@reportkit/postgres";
import { type Insights, readOnlyPool } from "@reportkit/postgres/insights";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requirePostgresServer } from "../support/postgres-server.js";
import { runReportkit } from "../support/reportkit-cli.js";
import { DAY, PREVIOUS_DAY, type SeededLedger, seedLedger } from "./seed-rig.js";

const PASSWORD = "Pa55-w0rd%2Fsecret";

/** Runs `reportkit insights …args` in this process. */
const insights = (args: string[], env: Record<string, string> = {}) =>
  runReportkit(["insights", ...args], env);

describe.runIf(requirePostgresServer("test/insights/cli.test.ts"))(
  "reportkit insights: text, JSON and the alert check",
  () => {
    let ledger: SeededLedger;
    let readerUrl: string;
    const range = ["--from", PREVIOUS_DAY, "--to", DAY];

    beforeAll(async () => {
      ledger = await seedLedger();
      const role = `reader_${randomUUID().replaceAll("-", "").slice(0, 10)}`;
      await ledger.pool.query(`CREATE ROLE ${role} LOGIN PASSWORD '${PASSWORD}'`);
      await ledger.pool.query(
        `GRANT SELECT ON reportkit_message_status, reportkit_calls, reportkit_opt_outs TO ${role}`,
      );
      readerUrl = `postgres://${role}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${ledger.server.port}/postgres`;
    });
    afterAll(async () => {
      await ledger?.close();
    });

    it("prints every insight as JSON for a role that may only read", async () => {
      // The role may read, and nothing more.
      const reader = new pg.Client({ connectionString: readerUrl });
      await reader.connect();
      await expect(reader.query("DELETE FROM reportkit_opt_outs")).rejects.toThrow(
        /permission denied/,
      );
      await reader.end();

      const run = await insights(["--database-url", readerUrl, "--format", "json", ...range]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const read = JSON.parse(run.stdout) as Insights;
      expect(read.summary.messages).toBe(ledger.messages.length);
      expect(read.messagesByDay.map((d) => [d.day, d.messages])).toEqual([
        [PREVIOUS_DAY, ledger.messages.filter((m) => m.day === PREVIOUS_DAY).length],
        [DAY, ledger.messages.filter((m) => m.day === DAY).length],
      ]);
      expect(read.callsByDay.reduce((sum, d) => sum + d.calls, 0)).toBe(ledger.calls.length);
      expect(read.optOutsByDay.reduce((sum, d) => sum + d.optOuts, 0)).toBe(ledger.optOuts.length);
      expect(read.query).toMatchObject({ from: PREVIOUS_DAY, to: DAY, timeZone: "Asia/Kolkata" });
      expect(run.stdout).not.toContain(PASSWORD);

      // The same from REPORTKIT_DB_URL, filtered.
      const jio = await insights(["--format", "json", "--provider", "Jio", ...range], {
        REPORTKIT_DB_URL: readerUrl,
      });
      expect(jio.code, jio.stderr).toBe(0);
      expect((JSON.parse(jio.stdout) as Insights).summary.messages).toBe(
        ledger.messages.filter((m) => m.report.provider === "Jio").length,
      );
    });

    it("reads through sessions that cannot write, whatever the role may do", async () => {
      const pool = readOnlyPool({ connectionString: ledger.url, statementTimeoutMs: 1000 });
      try {
        await expect(pool.query("DELETE FROM reportkit_opt_outs")).rejects.toThrow(
          "cannot execute DELETE in a read-only transaction",
        );
        await expect(pool.query("SELECT pg_sleep(3)")).rejects.toThrow(
          "canceling statement due to statement timeout",
        );
        const { rows } = await pool.query("SELECT count(*)::int AS n FROM reportkit_opt_outs");
        expect(rows).toEqual([{ n: ledger.optOuts.length }]);
      } finally {
        await pool.end();
      }
    });

    it("prints every insight as text tables", async () => {
      const run = await insights(["--database-url", readerUrl, "--format", "text", ...range]);
      expect(run.code, run.stderr).toBe(0);
      const delivered = ledger.messages.filter((m) => m.report.status === "DELIVRD").length;
      expect(run.stdout).toContain(
        `reportkit insights: ${PREVIOUS_DAY} to ${DAY} (Asia/Kolkata); campaigns by custom1\nmessages ${ledger.messages.length}: ${delivered} delivered,`,
      );
      for (const title of [
        "Messages by day",
        "Delivery rate by operator",
        "Delivery rate by circle",
        "Delivery rate by campaign",
        "Why messages failed",
        "Failures by status",
        "How long delivery took, by day (seconds)",
        "How long delivery took, by operator (seconds)",
        "Credits by day",
        "Calls by day",
        "Opt-outs by day",
        "Opt-outs by sender id",
      ]) {
        expect(run.stdout).toContain(`\n${title}`);
      }
      const dlt = ledger.messages.filter((m) => m.report.status === "DLT-REJECTED").length;
      expect(run.stdout).toMatch(new RegExp(`\\ndlt +${dlt} +0\\n`));
      expect(run.stdout).not.toContain("(nothing in this range)");
    });

    it("exits 2 when the delivery rate of the last hour is below --fail-below, 0 when not", async () => {
      const now = Math.floor(Date.now() / 1000);
      const client = await ledger.pool.connect();
      try {
        for (const [i, status] of [
          "DELIVRD",
          "DELIVRD",
          "DELIVRD",
          "UNDELIV",
          "ENROUTE",
        ].entries()) {
          const parsed = parseReport({
            id: `${randomUUID()}:1`,
            mobile: "919876543210",
            status,
            sent_at: String(now - 600 + i),
            submit_at: String(now - 599 + i),
          });
          if (!parsed.ok || parsed.report.type !== "delivery") throw new Error("not a DLR");
          await client.query("BEGIN");
          await recordStatus(client, parsed.report);
          await client.query("COMMIT");
        }
      } finally {
        client.release();
      }
      // 3 delivered of the 4 settled: 75%.
      const below = await insights([
        "--database-url",
        readerUrl,
        "--format",
        "text",
        "--fail-below",
        "90",
      ]);
      expect(below.code).toBe(2);
      expect(below.stdout).toBe(
        "delivery rate of the last 1h: 75.0% (3 delivered of 4 settled, 1 pending), BELOW 90%\n",
      );
      expect(below.stderr).toBe("reportkit: the delivery rate of the last 1h is below 90%.\n");
      const json = await insights([
        "--database-url",
        readerUrl,
        "--format",
        "json",
        "--fail-below",
        "90",
        "--window",
        "30m",
      ]);
      expect(json.code).toBe(2);
      expect(JSON.parse(json.stdout)).toMatchObject({
        alert: {
          threshold: 90,
          window: "30m",
          below: true,
          summary: { messages: 5, delivered: 3, pending: 1, deliveryRate: 0.75 },
        },
      });
      const above = await insights([
        "--database-url",
        readerUrl,
        "--format",
        "text",
        "--fail-below",
        "75",
      ]);
      expect([above.code, above.stdout]).toEqual([
        0,
        "delivery rate of the last 1h: 75.0% (3 delivered of 4 settled, 1 pending), at or above 75%\n",
      ]);
      // Nothing settled in the window: nothing to alert on.
      const quiet = await insights([
        "--database-url",
        readerUrl,
        "--format",
        "text",
        "--fail-below",
        "90",
        "--provider",
        "Nobody",
      ]);
      expect(quiet.code).toBe(0);
      expect(quiet.stdout).toContain("no message settled");
    });

    it("never prints the password: not when the server is unreachable, nor for a wrong flag", async () => {
      const closed = `postgres://reader:${encodeURIComponent(PASSWORD)}@127.0.0.1:1/app`;
      const unreachable = await insights(["--database-url", closed, "--format", "json"]);
      expect(unreachable.code).toBe(1);
      expect(unreachable.stderr).toMatch(
        /^reportkit: reading the ledger at 127\.0\.0\.1:1\/app failed: .*ECONNREFUSED/,
      );
      const wrongDatabase = await insights([
        "--database-url",
        readerUrl.replace(/\/postgres$/, "/nothing_here"),
        "--format",
        "text",
      ]);
      expect(wrongDatabase.code).toBe(1);
      expect(wrongDatabase.stderr).toContain('database "nothing_here" does not exist');
      const missing = await insights([
        "--format",
        "json",
        "--database-url",
        ledger.url.replace(/\/postgres$/, "/template1"),
      ]);
      expect(missing.stderr).toMatch(
        /^reportkit: reading the ledger at 127\.0\.0\.1:\d+\/template1 failed: readInsights: the ledger lacks reportkit_message_status, reportkit_calls, reportkit_opt_outs\. /,
      );
      for (const args of [
        ["--database-url", readerUrl, "--format", "pdf"],
        ["--database-url", readerUrl, "--fail-below", "90"],
        ["--database-url", readerUrl, "--format", "text", "--fail-below", "120"],
        [
          "--database-url",
          readerUrl,
          "--format",
          "text",
          "--from",
          "2026-11-30",
          "--to",
          "2026-11-01",
        ],
        ["--database-url", `mysql://root:${PASSWORD}@127.0.0.1/app`],
      ]) {
        const run = await insights(args);
        expect(run.code, args.join(" ")).toBe(1);
        expect(run.stderr, args.join(" ")).toMatch(/^reportkit: /);
      }
      for (const run of [unreachable, wrongDatabase, missing]) {
        expect(`${run.stdout}${run.stderr}`).not.toContain(PASSWORD);
        expect(`${run.stdout}${run.stderr}`).not.toContain(decodeURIComponent(PASSWORD));
      }
    });
  },
);
