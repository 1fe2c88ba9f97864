// `reportkit replay` against every journal (Postgres, Redis) and real receivers over HTTP: an
// entry is resolved only on reportkit's own reply; a redirect elsewhere sends nothing there;
// the secret is printed nowhere, whatever the receiver echoes; a receiver that never answers
// ends the binary after --timeout; --header; and every entry is replayed, past a page.
import type http from "node:http";
import type { Report } from "@reportkit/core";
import { webhookReceiver } from "@reportkit/express";
import express from "express";
import { beforeAll, describe, expect, it } from "vitest";
import { type JournalServer, SECRET, useReplayRig } from "./replay-rig.js";

const failedLine = (key: string, reason: string) => `${key}  failed: ${reason}`;
const summaryOf = (stdout: string) => JSON.parse(stdout.trimEnd().split("\n").at(-1) ?? "null");

export function runReplayCases(name: string, open: () => Promise<JournalServer>): void {
  describe(`reportkit replay, the journal in ${name}`, () => {
    const rig = useReplayRig(open);
    let origin: string;
    let otherOrigin: string;
    let otherHits = 0;
    let runs: string[] = [];
    const keyed: string[] = [];
    const queued = new Map<string | undefined, Report>();
    let stopTheJournalOnce = false;

    beforeAll(async () => {
      otherOrigin = await rig.listen((req, res) => {
        otherHits += 1;
        req.resume();
        res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      });
      const echo = (req: http.IncomingMessage) => {
        const got = String(req.headers["x-api-key"] ?? req.headers.authorization);
        const forms = [got, got.toUpperCase(), encodeURIComponent(got)];
        return `${forms.join(" ")} ${Buffer.from(got).toString("base64")}`;
      };
      const app = express();
      app.post("/html", (_req, res) => {
        res.type("html").send("<!doctype html><html><title>My app</title><body>Welcome</body>");
      });
      app.post("/not-ours", (_req, res) => res.json({ received: true }));
      app.post("/empty", (_req, res) => res.status(204).end());
      app.post("/moved", (_req, res) => res.redirect(308, "/webhooks"));
      app.post("/elsewhere", (_req, res) => res.redirect(307, `${otherOrigin}/webhooks`));
      app.post("/echo", (req, res) => res.status(401).send(`refused ${echo(req)}`));
      app.post("/echo-page", (req, res) => res.type("html").send(`<p>hello ${echo(req)}</p>`));
      app.use(
        "/keyed",
        webhookReceiver({
          secret: { value: SECRET, header: "x-api-key" },
          logger: false,
          onDelivery: (report) => {
            keyed.push(report.id);
          },
        }),
      );
      app.use(
        "/queued",
        webhookReceiver({
          secret: SECRET,
          logger: false,
          queue: {
            enqueue: async (report, key) => {
              queued.set(key, report);
            },
          },
        }),
      );
      app.use(
        webhookReceiver({
          secret: SECRET,
          logger: false,
          onDelivery: async (report) => {
            runs.push(report.id);
            if (stopTheJournalOnce) {
              stopTheJournalOnce = false;
              await rig.db.stop();
            }
          },
        }),
      );
      origin = await rig.listen(app);
    });

    it.each([
      {
        target: "/html",
        reason:
          "HTTP 200 but not reportkit's reply (text/html), so not counted as processed: is the URL your receiver's?: <!doctype html><html><title>My app</title><body>Welcome</body>",
      },
      {
        target: "/not-ours",
        reason:
          "HTTP 200 but not reportkit's reply (application/json), so not counted as processed: is the URL your receiver's?: {\"received\":true}",
      },
      { target: "/empty", reason: "HTTP 204 (the provider counts only 200 and 202 as success)" },
    ])(
      "a reply that is not reportkit's ($target) is a failure; the entry stays failed",
      async ({ target, reason }) => {
        const { key } = await rig.keep();
        const run = await rig.replay(["--to", `${origin}${target}`, "--secret", SECRET]);
        expect(run).toEqual({
          code: 1,
          stdout: `${failedLine(key, reason)}\nreplayed 1: 0 processed, 0 duplicate, 0 queued, 1 failed\n`,
          stderr:
            "reportkit: 1 of 1 were not answered with reportkit's reply (listed above); they stay in the journal: fix the cause and run it again.\n",
        });
        expect(await rig.statusOf(key)).toBe("failed");
      },
    );

    it("a redirect to another origin sends nothing there; one within the origin is followed", async () => {
      otherHits = 0;
      const away = await rig.keep();
      const run = await rig.replay(["--to", `${origin}/elsewhere`, "--secret", SECRET]);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(
        failedLine(
          away.key,
          `redirected (307) to another origin, ${otherOrigin}: not followed, the request carries the webhook's secret. Give --to the address the receiver really answers at\n`,
        ),
      );
      expect(otherHits).toBe(0);
      expect(await rig.statusOf(away.key)).toBe("failed");
      await rig.db.journal.resolve(away.key);

      runs = [];
      const moved = await rig.keep();
      const followed = await rig.replay(["--to", `${origin}/moved`, "--secret", SECRET]);
      expect(followed).toEqual({
        code: 0,
        stdout: `${moved.key}  processed\nreplayed 1: 1 processed, 0 duplicate, 0 queued, 0 failed\n`,
        stderr: "",
      });
      expect(runs).toEqual([JSON.parse(moved.body).id]);
      expect(await rig.statusOf(moved.key)).toBe("resolved");
    });

    it("prints the secret nowhere when the receiver echoes it, as sent, in another case, URL-encoded or in base64", async () => {
      const { key } = await rig.keep();
      for (const args of [
        ["--to", `${origin}/echo`],
        ["--to", `${origin}/echo`, "--header", "x-api-key", "--json"],
        ["--to", `${origin}/echo-page`],
      ]) {
        const run = await rig.replay([...args, "--secret", SECRET]);
        expect(run.code).toBe(1);
        const printed = run.stdout + run.stderr;
        expect(printed).toContain(key);
        expect(printed).toMatch(/(Bearer )?\[token\] (BEARER )?\[token\] (Bearer%20)?\[token\] /);
        expect(printed.toLowerCase()).not.toContain(SECRET.toLowerCase());
        for (const sent of [SECRET, `Bearer ${SECRET}`]) {
          expect(printed).not.toContain(Buffer.from(sent).toString("base64").slice(2, -2));
        }
      }
      expect(await rig.statusOf(key)).toBe("failed");
    });

    it("a kept key cannot forge a line: line breaks, ESC and bidi controls are shown escaped (issue 42, finding 6)", async () => {
      const forged = `${crypto.randomUUID()}:1\n${crypto.randomUUID()}:1  processed\u001b]0;x\u0007\u202e`;
      const { key } = await rig.keep({ id: forged });
      const shown = key
        .replace("\n", "\\u000a")
        .replace("\u001b", "\\u001b")
        .replace("\u0007", "\\u0007")
        .replace("\u202e", "\\u202e");
      const dry = await rig.replay(["--to", origin, "--dry-run"]);
      expect(dry).toEqual({
        code: 0,
        stdout: `would send POST ${origin}/webhooks  (${shown})\n1 entry to replay (dry run: nothing sent)\n`,
        stderr: "",
      });
      const run = await rig.replay(["--to", `${origin}/empty`, "--secret", SECRET]);
      expect(run.stdout).toBe(
        `${failedLine(shown, "HTTP 204 (the provider counts only 200 and 202 as success)")}\nreplayed 1: 0 processed, 0 duplicate, 0 queued, 1 failed\n`,
      );
    });

    it("the binary gives up on a receiver that never answers after --timeout, naming the entry, exit 1", async () => {
      const { key } = await rig.keep();
      const silent = await rig.listen((req) => {
        req.resume();
      });
      const run = await rig.replayBinary(
        ["--to", silent, "--secret", SECRET, "--timeout", "500ms"],
        30_000,
      );
      expect(run).toEqual({
        code: 1,
        stdout: `${failedLine(key, "no answer within 500 ms")}\nreplayed 1: 0 processed, 0 duplicate, 0 queued, 1 failed\n`,
        stderr: `reportkit: 1 of 1 were not answered with reportkit's reply (listed above); they stay in the journal: fix the cause and run it again. No answer within --timeout 500ms for ${key}.\n`,
      });
      expect(await rig.statusOf(key)).toBe("failed");
    });

    it("--header sends the secret as a custom header's whole value, as reconcile does", async () => {
      const { key, body } = await rig.keep();
      const bearer = await rig.replay(["--to", `${origin}/keyed`, "--secret", SECRET]);
      expect(bearer.stdout).toContain(failedLine(key, "HTTP 401: "));
      const args = ["--to", `${origin}/keyed`, "--secret", SECRET, "--header", "X-Api-Key"];
      const run = await rig.replay(args);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(`${key}  processed\n`);
      expect(keyed).toEqual([JSON.parse(body).id]);
      expect(await rig.statusOf(key)).toBe("resolved");
      const wrong = await rig.replay(["--to", origin, "--secret", SECRET, "--header", "x api"]);
      expect(wrong.stderr).toBe(
        'reportkit: --header must be a header name such as x-api-key; got "x api".\n',
      );
    });

    it("reportkit's three replies: processed, duplicate and queued, each entry resolved (--json)", async () => {
      runs = [];
      const fresh = await rig.keep();
      const done = await rig.keep();
      const handedOn = await rig.keep({ url: "/queued" });
      const sent = await fetch(`${origin}/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
        body: done.body,
      });
      expect(await sent.text()).toBe('{"ok":true}');
      const run = await rig.replay(["--to", origin, "--secret", SECRET, "--json"]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trimEnd().split("\n")).toHaveLength(1);
      expect(summaryOf(run.stdout)).toMatchObject({
        dryRun: false,
        complete: true,
        entries: 3,
        processed: 1,
        duplicate: 1,
        queued: 1,
        failed: 0,
        failures: [],
      });
      expect(queued.has(handedOn.key)).toBe(true);
      for (const { key } of [fresh, done, handedOn]) {
        expect(await rig.statusOf(key)).toBe("resolved");
      }
    });

    it("replays every entry past a page, 600 of them last seen at one instant: 1,200, each once", async () => {
      const start = Date.now() - 3_600_000;
      const ids = Array.from({ length: 1200 }, () => `${crypto.randomUUID()}:1`);
      for (let i = 0; i < ids.length; i += 100) {
        await Promise.all(
          ids
            .slice(i, i + 100)
            .map((id, j) => rig.keep({ id, at: new Date(start + Math.min(i + j, 600)) })),
        );
      }
      runs = [];
      const run = await rig.replay(["--to", origin, "--secret", SECRET, "--concurrency", "8"]);
      expect(run.code, run.stderr).toBe(0);
      expect(
        run.stdout.endsWith("replayed 1200: 1200 processed, 0 duplicate, 0 queued, 0 failed\n"),
      ).toBe(true);
      expect(runs).toHaveLength(1200);
      expect(new Set(runs)).toEqual(new Set(ids));
      expect(await rig.db.journal.list({ status: "failed" })).toEqual([]);
    });

    it("stops when the journal goes away mid-run, saying what was done and that the rest stay", async () => {
      runs = [];
      const start = Date.now() - 60_000;
      const [first, second] = [
        await rig.keep({ at: new Date(start) }),
        await rig.keep({ at: new Date(start + 1) }),
      ];
      stopTheJournalOnce = true;
      const run = await rig.replay(["--to", origin, "--secret", SECRET, "--concurrency", "1"]);
      await rig.db.start();
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(
        new RegExp(
          `^${first.key}  processed\\nreplayed 1: 1 processed, 0 duplicate, 0 queued, 0 failed \\(stopped early: marking ${first.key} resolved failed: .+\\)\\n$`,
        ),
      );
      expect(run.stderr).toMatch(
        new RegExp(
          `^reportkit: replay stopped after 1 entry: marking ${first.key} resolved failed: .+\\. The entries not replayed stay in the journal: run it again \\(what was resolved is not sent again\\)\\.\\n$`,
        ),
      );
      expect(runs).toEqual([JSON.parse(first.body).id]);
      expect(await rig.statusOf(second.key)).toBe("failed");
      // Run again: the first comes back as a duplicate, the second is processed.
      const again = await rig.replay(["--to", origin, "--secret", SECRET, "--concurrency", "1"]);
      expect(again.stdout).toBe(
        `${first.key}  duplicate\n${second.key}  processed\nreplayed 2: 1 processed, 1 duplicate, 0 queued, 0 failed\n`,
      );
    });
  });
}
