// One authenticated request must not end the process through the journal: Express with
// express.json() before the receiver, the Postgres inbox, an async handler that throws, and a
// report with a field nested 12,000 arrays deep (too deep for JSON.stringify's stack). The
// reply is the handler's 500, nothing is left unhandled, and the journal keeps the report as
// JSON cut where it was too deep, saying so.
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { webhookReceiver } from "@reportkit/express";
import { type PostgresInbox, postgresInbox } from "@reportkit/postgres";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";

const DEPTH = 12_000;

describe.runIf(requirePostgresServer("deep-body.test.ts"))(
  "a report nested 12,000 arrays deep, parsed by express.json(), whose handler throws",
  () => {
    let server: PostgresServer;
    let store: PostgresInbox;
    let http: Server;
    let origin = "";
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);

    beforeAll(async () => {
      server = await startPostgresServer();
      store = postgresInbox({ connectionString: server.url });
      const app = express();
      app.use(express.json());
      app.use(
        webhookReceiver({
          secret: TOKEN,
          dedupe: store,
          logger: false,
          onDelivery: async () => {
            throw new Error("the handler failed");
          },
        }),
      );
      http = await new Promise<Server>((resolve) => {
        const s = app.listen(0, "127.0.0.1", () => resolve(s));
      });
      origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      process.on("unhandledRejection", onUnhandled);
    });
    afterAll(async () => {
      process.off("unhandledRejection", onUnhandled);
      await new Promise((resolve) => http?.close(resolve));
      await store?.close();
      await server?.close();
    });

    it("answers 500, leaves nothing unhandled, and journals the report", async () => {
      const id = `${randomUUID()}:1`;
      const deep = `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`;
      const body = `${JSON.stringify({ ...SAMPLE_DLR, id }).slice(0, -1)},"extra":${deep}}`;
      const reply = await fetch(`${origin}/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body,
      });
      expect(reply.status).toBe(500);
      expect((await reply.json()).error.code).toBe("handler_failed");
      // The process still serves: a second copy gets the same answer.
      const again = await fetch(`${origin}/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body,
      });
      expect(again.status).toBe(500);
      const entry = (await store.journal.list()).find((e) => e.key === `delivery:${id}:DELIVRD`);
      expect(entry).toMatchObject({ status: "failed", attempts: 2, kind: "delivery" });
      // What express.json() parsed, written back for core as deep as a report keeps: the rest
      // replaced by a note, so the entry is JSON that says where it was cut.
      const kept = JSON.parse(entry?.request.body ?? "") as { id: string; extra: unknown };
      expect(kept.id).toBe(id);
      expect(JSON.stringify(kept.extra)).toContain("nested deeper than 64 levels");
      expect(unhandled).toEqual([]);
    });
  },
);
