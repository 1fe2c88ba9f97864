// Real sockets for the sandbox tests: a receiver that records what it is sent and answers as
// told, a core receiver served by node:http, and a port that refuses connections.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Receiver } from "@reportkit/core";

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/**
 * What the recorder does with the n-th request (0-based): answer a status (at once, or once a
 * promise of it settles), or never answer.
 */
export type Behaviour = (n: number, request: Recorded) => number | "hang" | Promise<number>;

export interface Running {
  url: string;
  close(): Promise<void>;
}

export interface Recorder extends Running {
  requests: Recorded[];
}

export async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export function stop(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export async function startRecorder(behaviour: Behaviour = () => 200): Promise<Recorder> {
  const requests: Recorded[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const recorded: Recorded = {
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body,
      text: body.toString("utf8"),
    };
    const n = requests.length;
    requests.push(recorded);
    const answer = await behaviour(n, recorded);
    if (answer === "hang") return;
    res.writeHead(answer, { "content-type": "text/plain" }).end(String(answer));
  });
  const url = await listen(server);
  return { url, requests, close: () => stop(server) };
}

/** Serves a core receiver on node:http, as the simplest real host would. */
export async function serveReceiver(receiver: Pick<Receiver, "handle">): Promise<Running> {
  const server = http.createServer(async (req, res) => {
    const reply = await receiver.handle({
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: req.headers,
      body: req,
    });
    res.writeHead(reply.status, reply.headers).end(reply.body);
  });
  const url = await listen(server);
  return { url, close: () => stop(server) };
}

/** A URL nothing listens on: connections to it are refused. */
export async function refusedUrl(): Promise<string> {
  const server = http.createServer();
  const url = await listen(server);
  await stop(server);
  return `${url}/reports`;
}

/** Resolves when `check` holds, polling; fails the test after `ms`. */
export async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("eventually: condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
