// What a refused or slow body costs the server, over real sockets, on every Node adapter:
// Express, Fastify, Hono on @hono/node-server, and core itself behind node:http. A body
// refused before it was read (401) is read and dropped up to 64 KiB, then the connection is
// closed rather than read on; an oversized one (413) closes it too; a body that does not
// arrive within bodyTimeoutMs gets 408 and a closed connection. A small refused body keeps a
// keep-alive connection usable.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createReceiver, type ReceiverOptions } from "@reportkit/core";
import { webhookReceiver as expressReceiver } from "@reportkit/express";
import {
  type FastifyReceiverOptions,
  webhookReceiver as fastifyReceiver,
} from "@reportkit/fastify";
import { webhookReceiver as honoReceiver } from "@reportkit/hono";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import { BIG, head, push } from "../support/raw-push.js";

interface Running {
  port: number;
  close(): Promise<void>;
}

type Start = (options: ReceiverOptions) => Promise<Running>;

function listening(server: http.Server): Promise<Running> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      }),
    );
  });
}

const TARGETS: Record<string, Start> = {
  "core (node:http)": (options) => {
    const receiver = createReceiver(options);
    return listening(
      http.createServer((req, res) => {
        receiver
          .handle({
            method: req.method ?? "",
            url: req.url ?? "/",
            headers: req.headers,
            body: req,
          })
          .then((reply) => res.writeHead(reply.status, reply.headers).end(reply.body));
      }),
    );
  },
  express: (options) => {
    const app = express();
    app.use(expressReceiver({ path: "/webhooks", ...options }));
    return listening(http.createServer(app));
  },
  fastify: async (options) => {
    const app = Fastify();
    await app.register(fastifyReceiver, options as FastifyReceiverOptions);
    await app.listen({ port: 0, host: "127.0.0.1" });
    return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
  },
  "hono (@hono/node-server)": (options) => {
    const app = new Hono();
    app.post("/webhooks", honoReceiver(options));
    return new Promise((resolve) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
        resolve({
          port: info.port,
          close: () =>
            new Promise((done) => {
              server.close(() => done());
              (server as http.Server).closeAllConnections?.();
            }),
        }),
      );
    });
  },
};

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

for (const [target, start] of Object.entries(TARGETS)) {
  describe(target, () => {
    it("401 before the body: reads at most a little of it, then closes the connection", async () => {
      running = await start({ secret: TOKEN, logger: false, onDelivery: () => {} });
      const max = 64 * 1024 * 1024;
      const pushed = await push(
        running.port,
        head(`authorization: Bearer wrong\r\ncontent-length: ${BIG}\r\n`),
        max,
      );
      expect(pushed.status).toBe(401);
      expect(pushed.headers.connection).toBe("close");
      // Before: the server read all 64 MiB of the refused body and kept the connection.
      expect(pushed.closedByServer).toBe(true);
      expect(pushed.written).toBeLessThan(max);
    });

    it("401 without a length (chunked): the same", async () => {
      running = await start({ secret: TOKEN, logger: false, onDelivery: () => {} });
      const max = 64 * 1024 * 1024;
      // One endless chunk: its size line says 256 MiB.
      const pushed = await push(
        running.port,
        `${head("authorization: Bearer wrong\r\ntransfer-encoding: chunked\r\n")}${BIG.toString(16)}\r\n`,
        max,
      );
      expect(pushed.status).toBe(401);
      expect(pushed.headers.connection).toBe("close");
      expect(pushed.written).toBeLessThan(max);
    });

    it("413 for a body over maxBodyBytes: closes the connection instead of reading on", async () => {
      running = await start({ secret: TOKEN, logger: false, onDelivery: () => {} });
      const max = 64 * 1024 * 1024;
      const pushed = await push(
        running.port,
        head(`authorization: Bearer ${TOKEN}\r\ntransfer-encoding: chunked\r\n`) +
          `${BIG.toString(16)}\r\n`,
        max,
      );
      expect(pushed.status).toBe(413);
      expect(pushed.headers.connection).toBe("close");
      expect(pushed.written).toBeLessThan(max);
    });

    it("408 when the body does not arrive within bodyTimeoutMs, and the connection closes", async () => {
      running = await start({
        secret: TOKEN,
        logger: false,
        onDelivery: () => {},
        body: { timeoutMs: 200 },
      });
      const pushed = await push(
        running.port,
        head(`authorization: Bearer ${TOKEN}\r\ncontent-length: 100\r\n`),
        0,
        true,
      );
      expect(pushed.status).toBe(408);
      expect(pushed.headers.connection).toBe("close");
    });

    it("a small refused body is read to its end and the connection stays open for the next request", async () => {
      running = await start({ secret: TOKEN, logger: false, onDelivery: () => {} });
      const body = JSON.stringify(SAMPLE_DLR);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const sockets = new Set<unknown>();
      const post = (token: string) =>
        new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
          const request = http.request(
            {
              port: running?.port,
              host: "127.0.0.1",
              method: "POST",
              path: "/webhooks",
              agent,
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            },
            (response) => {
              sockets.add(response.socket);
              response.resume();
              response.on("end", () =>
                resolve({
                  status: response.statusCode ?? 0,
                  connection: response.headers.connection,
                }),
              );
            },
          );
          request.on("error", reject);
          request.end(body);
        });
      expect(await post("wrong")).toEqual({ status: 401, connection: "keep-alive" });
      expect(await post(TOKEN)).toMatchObject({ status: 200 });
      expect(sockets.size).toBe(1);
      agent.destroy();
    });
  });
}
