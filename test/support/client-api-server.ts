// Real HTTP servers on free loopback ports standing in for the management API, for the client's
// tests of how it reads what a server sends (the envelope, the size cap, redirects, redaction);
// the global fetch talks to them. closeServers() closes every one started (call it afterEach).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createClient } from "../../packages/client/src/create-client.js";

/** The API token the clients of these tests send (and must never show). */
export const TOKEN = "Secret-Api-Token-4242";
export const ID = "9a7b4c2e-3f1d-4e5a-8b6c-0d9e8f7a6b5c";
/** A webhook as the show endpoint serves it (provider-interface.md 2.1). */
export const WIRE = {
  id: ID,
  name: "orders",
  uri: "https://my.app/reports",
  secret: "********",
  verification_code: "********",
  status: 1,
  created_at: "2022-10-19T07:40:13.000000Z",
  updated_at: "2022-10-19T07:40:13.000000Z",
};

const open: http.Server[] = [];

async function listen(server: http.Server): Promise<string> {
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes every server these helpers started, with their connections. */
export async function closeServers(): Promise<void> {
  await Promise.all(
    open.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
}

export interface Api {
  baseUrl: string;
  /** Requests seen, "METHOD /path". */
  requests: string[];
}

/** A real API server: `answer` gets the request count and writes the response. */
export async function serve(
  answer: (res: http.ServerResponse, n: number, req: http.IncomingMessage) => void,
): Promise<Api> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    req.on("end", () => answer(res, requests.length - 1, req));
  });
  return { baseUrl: `${await listen(server)}/api/v2/`, requests };
}

export function sendJson(res: http.ServerResponse, body: unknown, status = 200): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** A client of `server` with TOKEN, retrying without a real wait. */
export function clientOf(server: Api, extra: { maxResponseBytes?: number; retries?: number } = {}) {
  return createClient({ baseUrl: server.baseUrl, token: TOKEN, retryBaseMs: 1, ...extra });
}

/** What `promise` rejects with; a test failure when it resolves. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error,
  );
}

/** A request a recording server received. */
export interface Received {
  method: string;
  url: string;
  body: string;
}

/** A real server that records each request, body and all, and answers with `reply`. */
export async function recordingServer(
  reply: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void,
): Promise<{ origin: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", body });
      reply(req, res, body);
    });
  });
  return { origin: await listen(server), received };
}
