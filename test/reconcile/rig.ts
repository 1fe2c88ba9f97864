// What the in-process `reportkit reconcile` tests share: the paging stand-in of the provider's
// pull APIs, a real Express receiver over HTTP (with a same-origin and a cross-origin redirect,
// a route that echoes the credential, one that never answers, an HTML page, one that reads a
// custom credential header), another origin that counts what reaches it, and the CLI's main.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { main } from "@reportkit/cli";
import type { CallReport, DeliveryReport } from "@reportkit/core";
import { webhookReceiver } from "@reportkit/express";
import express from "express";
import { afterAll, beforeAll, beforeEach } from "vitest";
import {
  type PullApiServer,
  type PulledCall,
  type PulledMessage,
  pulledMessage,
  startPullApiServer,
} from "../support/pull-api-server.js";

export const API_TOKEN = "options-api-token-1618";
export const SECRET = "options-webhook-secret-1414";
export const DAY = "2024-06-24";

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Rig {
  api: PullApiServer;
  /** What the stand-in lists; emptied before each test. */
  messages: PulledMessage[];
  calls: PulledCall[];
  /** The receiver's origin (its receiver at /webhooks, /keyed with x-api-key). */
  origin: string;
  otherOrigin: string;
  /** Requests that reached the other origin. */
  otherHits: number;
  deliveries: { report: DeliveryReport; reconciled: string | null }[];
  callReports: CallReport[];
  /** Message ids whose handler fails. */
  failing: Set<string>;
  /** Listens with `app` on a free port; closed after the file's tests. */
  listen(app: http.RequestListener): Promise<string>;
  /** `reportkit reconcile <args>`, in process, against the stand-in. */
  reconcile(args: string[], env?: Record<string, string>): Promise<Run>;
  /** `reportkit reconcile <args> --to <the receiver> --secret … --date <DAY> --json`. */
  reconcileDay(...args: string[]): Promise<Run>;
}

/** The summary: the JSON object on the last line of stdout. */
export const summaryOf = (run: Run) => JSON.parse(run.stdout.trimEnd().split("\n").at(-1) ?? "");

/** `n` messages of the day with `status`. */
export const ids = (n: number, status = "DELIVRD") =>
  Array.from({ length: n }, () => pulledMessage({ id: `${crypto.randomUUID()}:1`, status }));

/** Registers the file's hooks; the rig's fields are set once `beforeAll` ran. */
export function useRig(): Rig {
  const servers: http.Server[] = [];
  const rig = {
    messages: [],
    calls: [],
    otherHits: 0,
    deliveries: [],
    callReports: [],
    failing: new Set<string>(),
    listen(app: http.RequestListener): Promise<string> {
      const server = http.createServer(app);
      servers.push(server);
      return new Promise((resolve) =>
        server.listen(0, "127.0.0.1", () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
        ),
      );
    },
    async reconcile(args: string[], env: Record<string, string> = {}): Promise<Run> {
      let stdout = "";
      let stderr = "";
      const code = await main(["node", "reportkit", "reconcile", ...args], {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        env: { REPORTKIT_BASE_URL: rig.api.baseUrl, REPORTKIT_API_TOKEN: API_TOKEN, ...env },
        stopSignal: () => new Promise(() => {}),
      });
      return { code, stdout, stderr };
    },
    reconcileDay(...args: string[]): Promise<Run> {
      const to = `${rig.origin}/webhooks`;
      return rig.reconcile([...args, "--to", to, "--secret", SECRET, "--date", DAY, "--json"]);
    },
  } as unknown as Rig;

  beforeAll(async () => {
    rig.api = await startPullApiServer({
      apiToken: API_TOKEN,
      messages: () => rig.messages,
      calls: () => rig.calls,
    });
    rig.otherOrigin = await rig.listen((_req, res) => {
      rig.otherHits += 1;
      res.writeHead(200).end('{"ok":true}');
    });
    const app = express();
    // A framework's redirect to the path with a trailing slash (same origin), and one elsewhere.
    app.post("/moved", (_req, res) => res.redirect(308, "/webhooks"));
    app.post("/elsewhere", (_req, res) => res.redirect(307, `${rig.otherOrigin}/webhooks`));
    // A receiver that echoes the credential it was sent, in another case.
    app.post("/echo", (req, res) => {
      res.status(500).send(`bad: ${String(req.headers.authorization).toUpperCase()}`);
    });
    app.post("/silent", () => {});
    // What a wrong --to may answer 200 with: a page of the app, not reportkit's reply.
    app.post("/page", (_req, res) => {
      res.type("html").send("<!doctype html><title>My app</title>");
    });
    app.use(
      webhookReceiver({
        secret: SECRET,
        logger: false,
        onDelivery: (report, ctx) => {
          if (rig.failing.has(report.id)) throw new Error("the orders table is locked");
          rig.deliveries.push({ report, reconciled: ctx.headers.get("x-reportkit-reconciled") });
        },
        onCall: (report) => {
          rig.callReports.push(report);
        },
      }),
    );
    app.use(
      "/keyed",
      webhookReceiver({
        secret: { value: SECRET, header: "x-api-key" },
        logger: false,
        onDelivery: (report) => {
          rig.deliveries.push({ report, reconciled: null });
        },
      }),
    );
    rig.origin = await rig.listen(app);
  });

  afterAll(async () => {
    await rig.api?.close();
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  beforeEach(() => {
    rig.messages = [];
    rig.calls = [];
    rig.deliveries = [];
    rig.callReports = [];
    rig.failing.clear();
    rig.otherHits = 0;
  });

  return rig;
}
