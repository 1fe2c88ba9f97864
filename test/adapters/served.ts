// Each adapter on a real socket, built the same way from core's options, so one test runs on
// all of them: Express 5 and 4 (app.use with the path option), Fastify (the plugin), and Hono
// on @hono/node-server (app.post). Plus a client that sends part of a body and hangs up.
import type { Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import type { ReceiverOptions } from "@reportkit/core";
import { webhookReceiver as expressReceiver } from "@reportkit/express";
import fastifyReceiver from "@reportkit/fastify";
import { webhookReceiver as honoReceiver } from "@reportkit/hono";
import express from "express";
import express4 from "express4";
import Fastify from "fastify";
import { Hono } from "hono";
import { TOKEN } from "../fixtures/samples.js";

/** A receiver on a listening server. */
export interface Served {
  /** http://127.0.0.1:<port>/webhooks */
  url: string;
  port: number;
  /** The Node server under the framework. */
  server: Server;
  /** The receiver's own close(): new reports get 503 shutting_down. */
  closeReceiver(): Promise<void>;
  /** Stops the server (and drops its connections). */
  close(): Promise<void>;
}

/** Serves a receiver with these options (the token is added) at /webhooks on a free port. */
export type Serve = (options: ReceiverOptions) => Promise<Served>;

type ExpressModule = typeof express;

function serveExpress(expressModule: ExpressModule): Serve {
  return async (options) => {
    const app = expressModule();
    const handler = expressReceiver({ path: "/webhooks", secret: TOKEN, ...options });
    app.use(handler);
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    return served(
      server,
      () => handler.close(),
      () => stop(server),
    );
  };
}

const serveFastify: Serve = async (options) => {
  const app = Fastify();
  await app.register(fastifyReceiver, { path: "/webhooks", secret: TOKEN, ...options });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return served(
    app.server,
    () => app.reportkit.close(),
    () => app.close(),
  );
};

const serveHono: Serve = async (options) => {
  const { serve } = await import("@hono/node-server");
  const app = new Hono();
  const handler = honoReceiver({ secret: TOKEN, ...options });
  app.post("/webhooks", handler);
  let server: Server | undefined;
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve()) as Server;
  });
  const node = server as Server;
  return served(
    node,
    () => handler.close(),
    () => stop(node),
  );
};

function served(server: Server, closeReceiver: () => Promise<void>, close: () => Promise<void>) {
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhooks`, port, server, closeReceiver, close };
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Keep-alive connections would hold close() open until they time out.
    server.closeAllConnections();
  });
}

/** Every adapter, on a real socket. */
export const ADAPTERS: { name: string; serve: Serve }[] = [
  { name: "@reportkit/express on Express 5", serve: serveExpress(express) },
  { name: "@reportkit/express on Express 4", serve: serveExpress(express4) },
  { name: "@reportkit/fastify", serve: serveFastify },
  { name: "@reportkit/hono on @hono/node-server", serve: serveHono },
];

/**
 * A client that hangs up mid-body, over a raw socket: it sends the request head with the whole
 * body's Content-Length and only the first `sentBytes` of the body, waits until the server has
 * the request (its `request` event), then destroys the connection. Resolves once it is gone.
 */
export async function disconnectMidBody(
  served: Served,
  headers: Record<string, string>,
  body: string,
  sentBytes: number,
): Promise<void> {
  const bytes = Buffer.from(body);
  if (sentBytes <= 0 || sentBytes >= bytes.length) {
    throw new RangeError(`sentBytes must be inside the body (1..${bytes.length - 1})`);
  }
  const head = [
    "POST /webhooks HTTP/1.1",
    `Host: 127.0.0.1:${served.port}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${bytes.length}`,
    "",
    "",
  ].join("\r\n");
  const received = new Promise<void>((resolve) => served.server.once("request", () => resolve()));
  const socket = connect(served.port, "127.0.0.1");
  socket.on("error", () => {});
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(Buffer.concat([Buffer.from(head), bytes.subarray(0, sentBytes)]));
  await received;
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.destroy();
  await closed;
}
