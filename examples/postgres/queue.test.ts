// The example's queue mode as its users run it (start:receiver, start:worker), against a real
// Postgres, curled: the DLR is answered 202 once its job is committed; the worker, told to take
// only known messages, parks it until the message's row appears, then records it once; the
// provider's retry adds nothing.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR_TEXT, TOKEN } from "../../test/fixtures/samples.js";
import { curl, type RunningExample, startExample } from "../../test/support/example-process.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../../test/support/postgres-server.js";

const ID = "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1";

describe.runIf(requirePostgresServer("examples/postgres queue mode"))(
  "examples/postgres in queue mode",
  () => {
    let server: PostgresServer;
    let receiver: RunningExample;
    let worker: ChildProcess;
    let workerOutput = "";

    beforeAll(async () => {
      server = await startPostgresServer();
      receiver = await startExample(new URL(".", import.meta.url), "queue-receiver.ts", {
        REPORTKIT_SECRET: TOKEN,
        DATABASE_URL: server.url,
      });
      worker = spawn(
        process.execPath,
        ["--import", "tsx", "--conditions=source", "queue-worker.ts"],
        {
          cwd: fileURLToPath(new URL(".", import.meta.url)),
          env: { ...process.env, DATABASE_URL: server.url, MESSAGES: "known" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      worker.stdout?.on("data", (chunk) => {
        workerOutput += chunk;
      });
      worker.stderr?.on("data", (chunk) => {
        workerOutput += chunk;
      });
      await vi.waitFor(() => expect(workerOutput).toContain("worker ready"), { timeout: 30_000 });
    });
    afterAll(async () => {
      if (worker !== undefined && worker.exitCode === null) {
        const exited = new Promise((resolve) => worker.once("exit", resolve));
        worker.kill("SIGTERM");
        await exited;
      }
      await receiver?.stop();
      await server?.close();
    });

    const postDlr = () =>
      curl(
        "-X",
        "POST",
        `${receiver.origin}/webhooks`,
        "-H",
        `Authorization: Bearer ${TOKEN}`,
        "-H",
        "Content-Type: application/json",
        "--data-binary",
        SAMPLE_DLR_TEXT,
      );

    it("answers 202, parks the report until its message is stored, then records it once", async () => {
      expect(await postDlr()).toEqual({ status: 202, body: '{"ok":true,"queued":true}' });
      await vi.waitFor(
        () => expect(workerOutput).toContain(`parked: message ${ID} is not stored yet`),
        { timeout: 15_000 },
      );
      expect((await curl(`${receiver.origin}/messages/${ID}`)).status).toBe(404);
      // The app's send stores the message: the parked report is recorded on its next run.
      const db = new pg.Client({ connectionString: server.url });
      await db.connect();
      await db.query("INSERT INTO messages (id) VALUES ($1)", [ID]);
      await db.end();
      await vi.waitFor(
        () => expect(workerOutput).toContain(`delivery ${ID}: DELIVRD recorded (delivered)`),
        { timeout: 15_000 },
      );
      const message = await curl(`${receiver.origin}/messages/${ID}`);
      expect(JSON.parse(message.body)).toMatchObject({ id: ID, status: "DELIVRD", reports: 1 });
      // The provider's retry: 202 again, recorded no second time.
      expect(await postDlr()).toEqual({ status: 202, body: '{"ok":true,"queued":true}' });
      expect(JSON.parse((await curl(`${receiver.origin}/messages/${ID}`)).body)).toMatchObject({
        reports: 1,
      });
      const health = await curl(`${receiver.origin}/health`);
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toMatchObject({ ok: true });
    });
  },
);
