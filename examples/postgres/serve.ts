// What the example's two web processes share (server.ts, synchronous; queue-receiver.ts, queue
// mode): the receiver at /webhooks, GET /messages/:id (what was recorded) and GET /health, on
// PORT, and a SIGTERM that closes the receiver, the server and the pool in turn.
import type { Server } from "node:http";
import express, { type RequestHandler } from "express";
import type pg from "pg";
import { messageById } from "./messages.js";

export function serve(
  receiver: RequestHandler & { health(): Promise<{ ok: boolean }>; close(): Promise<void> },
  pool: pg.Pool,
): Server {
  const app = express();
  app.use(receiver);
  app.get("/messages/:id", async (req, res) => {
    const message = await messageById(pool, req.params.id);
    if (message === undefined) res.status(404).json({ error: "no such message" });
    else res.json(message);
  });
  app.get("/health", async (_req, res) => {
    const health = await receiver.health();
    res.status(health.ok ? 200 : 503).json(health);
  });
  const server = app.listen(Number(process.env.PORT ?? 3000), () => {
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : process.env.PORT;
    console.log(`listening on http://127.0.0.1:${port}/webhooks`);
  });
  process.once("SIGTERM", async () => {
    await receiver.close();
    server.close();
    await pool.end();
  });
  return server;
}
