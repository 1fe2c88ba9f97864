// The failure journal's behaviour, the same against every store that keeps one (Postgres,
// Redis): an Express receiver over real HTTP, a handler that fails and is then fixed, and the
// real `reportkit journal list` / `reportkit replay` commands (the CLI's main, in process).
import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { main } from "@reportkit/cli";
import type { ReceiverOptions } from "@reportkit/core";
import type { DedupeStore, JournalEntry, JournalRecord } from "@reportkit/core/adapter";
import { webhookReceiver } from "@reportkit/express";
import { storedKey } from "@reportkit/wire/internal";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";

export interface JournalSetup {
  /** The journal's database URL, for the CLI's --db. */
  url: string;
  /** A dedupe store with its journal, on that database. */
  store(): DedupeStore & {
    journal: {
      record(entry: JournalRecord): Promise<void>;
      resolve(key: string): Promise<boolean>;
    };
  };
  /** Every kept entry. */
  entries(): Promise<JournalEntry[]>;
  close(): Promise<void>;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `reportkit <args>`, the CLI's main in process. */
export function reportkit(...args: string[]): Promise<Run> {
  return reportkitWith({}, ...args);
}

async function reportkitWith(env: Record<string, string>, ...args: string[]): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await main(["node", "reportkit", ...args], {
    stdout: (text: string) => {
      stdout += text;
    },
    stderr: (text: string) => {
      stderr += text;
    },
    env,
    stopSignal: () => new Promise(() => {}),
  });
  return { code, stdout, stderr };
}

/**
 * An Express receiver with the setup's store and `handlers` on a free loopback port, its
 * secret TOKEN; the caller closes `server`.
 */
export async function serveOn(
  setup: JournalSetup,
  handlers: Omit<ReceiverOptions, "secret" | "dedupe" | "logger">,
): Promise<{ server: Server; origin: string }> {
  const app = express();
  app.use(webhookReceiver({ secret: TOKEN, dedupe: setup.store(), logger: false, ...handlers }));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export function runJournalCases(name: string, open: () => Promise<JournalSetup>): void {
  describe(`the failure journal in ${name}`, () => {
    let setup: JournalSetup;
    let origin: string;
    let server: Server;
    let failing = true;
    let runs: string[] = [];
    const errorText = 'relation "messages" does not exist';

    const send = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${origin}/webhooks?from=provider`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/json",
          ...headers,
        },
        body,
      });
    const entryFor = async (key: string) => (await setup.entries()).find((e) => e.key === key);

    beforeAll(async () => {
      setup = await open();
      ({ server, origin } = await serveOn(setup, {
        onDelivery: (report) => {
          runs.push(report.id);
          if (failing) throw new Error(errorText);
        },
      }));
    });
    afterAll(async () => {
      await new Promise((resolve) => server?.close(resolve));
      await setup?.close();
    });

    it("keeps a report whose handler failed 4 times as one `failed` entry, attempts 4, no token", async () => {
      failing = true;
      runs = [];
      const id = `${crypto.randomUUID()}:1`;
      const body = JSON.stringify({ ...SAMPLE_DLR, id });
      for (let i = 0; i < 4; i++) expect((await send(body)).status).toBe(500);
      const entry = await entryFor(`delivery:${id}:DELIVRD`);
      expect(entry).toMatchObject({
        kind: "delivery",
        status: "failed",
        attempts: 4,
        request: {
          method: "POST",
          url: "/webhooks?from=provider",
          contentType: "application/json",
          body,
          bodyEncoding: "utf8",
        },
      });
      expect(entry?.lastError).toBe(
        `handler_failed: The report handler failed; the provider will retry this report. Cause: ${errorText}`,
      );
      expect((entry as JournalEntry).lastSeen.getTime()).toBeGreaterThanOrEqual(
        (entry as JournalEntry).firstSeen.getTime(),
      );
      expect(JSON.stringify(await setup.entries())).not.toContain(TOKEN);

      const listed = await reportkit(
        "journal",
        "list",
        "--db",
        setup.url,
        "--status",
        "failed",
        "--json",
      );
      expect(listed.code, listed.stderr).toBe(0);
      const data = JSON.parse(listed.stdout).data as { key: string; attempts: number }[];
      expect(data.filter((e) => e.key === `delivery:${id}:DELIVRD`).map((e) => e.attempts)).toEqual(
        [4],
      );

      // Fixed: replay sends it again as the provider would; it is processed once, resolved.
      failing = false;
      runs = [];
      const replay = await reportkit(
        "replay",
        "--db",
        setup.url,
        "--to",
        origin,
        "--secret",
        TOKEN,
      );
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.stdout).toContain(`delivery:${id}:DELIVRD  processed\n`);
      expect(replay.stdout).toMatch(
        /replayed \d+: \d+ processed, 0 duplicate, 0 queued, 0 failed\n$/,
      );
      expect(runs).toEqual([id]);
      expect((await entryFor(`delivery:${id}:DELIVRD`))?.status).toBe("resolved");
      // The provider's own retry now finds it done; a second replay sends nothing of it.
      expect(await (await send(body)).text()).toBe('{"ok":true,"duplicate":true}');
      const again = await reportkit("replay", "--db", setup.url, "--to", origin, "--token", TOKEN);
      expect(again.stdout).not.toContain(id);
      expect(runs).toEqual([id]);
    });

    it("resolves the entry when the provider's own retry succeeds (the store's complete does)", async () => {
      failing = true;
      const id = `${crypto.randomUUID()}:1`;
      const body = JSON.stringify({ ...SAMPLE_DLR, id });
      expect((await send(body)).status).toBe(500);
      expect((await entryFor(`delivery:${id}:DELIVRD`))?.status).toBe("failed");
      failing = false;
      expect(await (await send(body)).text()).toBe('{"ok":true}');
      expect((await entryFor(`delivery:${id}:DELIVRD`))?.status).toBe("resolved");
    });

    it("keeps a 400 after authentication as `refused`, and nothing of a 401", async () => {
      const before = (await setup.entries()).length;
      const { status: _status, ...noStatus } = { ...SAMPLE_DLR, id: crypto.randomUUID() } as Record<
        string,
        unknown
      >;
      const body = JSON.stringify(noStatus);
      const unauthenticated = await send(JSON.stringify({ ...noStatus, id: "no-token" }), {
        authorization: "Bearer wrong",
      });
      expect(unauthenticated.status).toBe(401);
      expect((await setup.entries()).length).toBe(before);

      const refused = await send(body);
      expect(refused.status).toBe(400);
      const entries = await setup.entries();
      expect(entries.length).toBe(before + 1);
      const entry = entries.find((e) => e.request.body === body) as JournalEntry;
      expect(entry.status).toBe("refused");
      expect(entry.key).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(entry.lastError).toMatch(/^invalid_report: /);
      expect(JSON.stringify(entries)).not.toContain(TOKEN);
      expect(JSON.stringify(entries)).not.toContain("no-token");

      const dryRun = await reportkit(
        "replay",
        "--db",
        setup.url,
        "--to",
        `${origin}/hooks`,
        "--status",
        "refused",
        "--dry-run",
      );
      expect(dryRun.code, dryRun.stderr).toBe(0);
      expect(dryRun.stdout).toContain(
        `would send POST ${origin}/hooks?from=provider  (${entry.key})`,
      );
      const listed = await reportkit("journal", "list", "--db", setup.url, "--status", "refused");
      expect(listed.stdout).toMatch(/^KEY\s+KIND\s+STATUS\s+ATTEMPTS/);
      expect(listed.stdout).toContain(entry.key);
    });

    it("marks resolved an entry whose report was processed meanwhile (replay gets 200 duplicate)", async () => {
      failing = false;
      const id = `${crypto.randomUUID()}:1`;
      const body = JSON.stringify({ ...SAMPLE_DLR, id });
      expect(await (await send(body)).text()).toBe('{"ok":true}');
      // An entry left behind for a report that is done (its failure was kept after the commit).
      await setup.store().journal.record({
        key: `delivery:${id}:DELIVRD`,
        kind: "delivery",
        status: "failed",
        request: {
          method: "POST",
          url: "/webhooks",
          contentType: "application/json",
          body,
          bodyEncoding: "utf8",
        },
        error: { code: "handler_timeout", message: "late" },
        at: new Date(),
      });
      runs = [];
      const replay = await reportkit(
        "replay",
        "--db",
        setup.url,
        "--to",
        origin,
        "--token",
        TOKEN,
        "--since",
        "1m",
      );
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.stdout).toContain(`delivery:${id}:DELIVRD  duplicate\n`);
      expect(runs).toEqual([]);
      expect((await entryFor(`delivery:${id}:DELIVRD`))?.status).toBe("resolved");
    });

    it("says what is wrong with the replay's options", async () => {
      const noTo = await reportkit("replay", "--db", setup.url, "--secret", TOKEN);
      expect([noTo.code, noTo.stderr]).toEqual([
        1,
        "reportkit: give --to, the receiver's URL (e.g. http://127.0.0.1:3000).\n",
      ]);
      const badStatus = await reportkit(
        "replay",
        "--db",
        setup.url,
        "--to",
        origin,
        "--token",
        TOKEN,
        "--status",
        "resolved",
      );
      expect(badStatus.stderr).toBe(
        'reportkit: --status must be failed, refused (comma-separated for several); got "resolved".\n',
      );
      const badDb = await reportkit("journal", "list", "--db", "mysql://x");
      expect(badDb.stderr).toBe(
        "reportkit: --db must start with postgres://, postgresql://, redis:// or rediss://.\n",
      );
    });

    it("keeps any key it is handed, none merged with another: NUL, a lone surrogate, 3,000 characters (issue 42, finding 8)", async () => {
      // Keys a user's dedupeKey may build: the parser refuses such ids, a dedupeKey may not.
      const store = setup.store();
      const tail = crypto.randomUUID();
      const keys = [
        `nul\u0000${tail}`,
        `sur\ud800${tail}`,
        `sur\udbff${tail}`,
        // Random, so that Postgres cannot compress it under its btree row limit.
        randomBytes(2250).toString("base64") + tail,
      ];
      const at = new Date();
      for (const key of keys) {
        await store.journal.record({
          key,
          kind: "delivery",
          status: "failed",
          request: {
            method: "POST",
            url: "/webhooks",
            contentType: null,
            body: key.slice(0, 40),
            bodyEncoding: "utf8",
          },
          error: { code: "handler_failed", message: "down" },
          at,
        });
      }
      const stored = await Promise.all(keys.map(storedKey));
      expect(new Set(stored).size).toBe(keys.length);
      for (const key of stored) {
        expect(key).toMatch(/^key-sha256:[0-9a-f]{64}$/);
        expect(await entryFor(key)).toMatchObject({ status: "failed", attempts: 1 });
      }
      // Each claimed once, its own key: the second surrogate is not taken for the first.
      for (const key of keys) {
        expect(await store.claim(key, "a")).toBe("claimed");
        await store.complete(key, "a");
      }
      for (const key of keys) expect(await store.claim(key, "b")).toBe("done");
      // Completing resolved each one's entry; `resolve` takes a key as listed or as given.
      for (const key of stored) expect((await entryFor(key))?.status).toBe("resolved");
      expect(await store.journal.resolve(stored[0] as string)).toBe(true);
      expect(await store.journal.resolve(keys[1] as string)).toBe(true);
    });

    it("replay sends the webhook's secret from REPORTKIT_SECRET, and prints no reply that echoes it", async () => {
      const id = `${crypto.randomUUID()}:1`;
      await setup.store().journal.record({
        key: `delivery:${id}:DELIVRD`,
        kind: "delivery",
        status: "failed",
        request: {
          method: "POST",
          url: "/webhooks",
          contentType: "application/json",
          body: JSON.stringify({ ...SAMPLE_DLR, id }),
          bodyEncoding: "utf8",
        },
        error: { code: "handler_failed", message: "down" },
        at: new Date(),
      });
      // A receiver that refuses, quoting the Authorization it got (in another letter case too).
      const { createServer } = await import("node:http");
      const echo = createServer((req, res) => {
        const got = req.headers.authorization ?? "none";
        req.resume();
        req.on("end", () => res.writeHead(401).end(`refused ${got} ${got.toUpperCase()}`));
      });
      await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
      const echoOrigin = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
      try {
        const replay = await reportkitWith(
          { REPORTKIT_SECRET: TOKEN },
          "replay",
          "--db",
          setup.url,
          "--to",
          echoOrigin,
          "--since",
          "1m",
        );
        expect(replay.code).toBe(1);
        expect(replay.stdout).toContain(
          `delivery:${id}:DELIVRD  failed: HTTP 401: refused Bearer [token] BEARER [token]`,
        );
        expect((replay.stdout + replay.stderr).toLowerCase()).not.toContain(TOKEN.toLowerCase());
      } finally {
        await new Promise((resolve) => echo.close(resolve));
      }
    });
  });
}
