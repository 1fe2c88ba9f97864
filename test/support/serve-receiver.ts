// What a receiver process of the multi-process tests (test/dedupe, test/postgres) does once its
// store and handler are built: serve POST /webhooks with the adapter asked for, on a free port,
// and say so on stdout ("<framework> listening on <url>"); SIGTERM closes the store first.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { DeliveryReport, Handler, ReceiverOptions } from "@reportkit/core";

/** An environment variable the process cannot run without. */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`receiver-process: ${name} is not set`);
  return value;
}

const PATH = "/webhooks";

/**
 * Serves a receiver with `options` on `framework` (express, fastify, hono) until SIGTERM, which
 * closes `store` and exits. `S`: what the store adds to `ctx` (Fastify's register() cannot carry
 * it, so there the handler is attached after, typed).
 */
export async function serveReceiver<S extends object>(
  framework: string | undefined,
  options: ReceiverOptions<undefined, S> & { onDelivery: Handler<DeliveryReport, S> },
  store: { close(): Promise<void> },
): Promise<void> {
  const port = await listen(framework, options);
  console.log(`${framework} listening on http://127.0.0.1:${port}`);
  process.once("SIGTERM", async () => {
    await store.close();
    process.exit(0);
  });
}

async function listen<S extends object>(
  framework: string | undefined,
  options: ReceiverOptions<undefined, S> & { onDelivery: Handler<DeliveryReport, S> },
): Promise<number> {
  if (framework === "express") {
    const { default: express } = await import("express");
    const { webhookReceiver } = await import("@reportkit/express");
    const app = express();
    app.use(webhookReceiver({ path: PATH, ...options }));
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    return (server.address() as AddressInfo).port;
  }
  if (framework === "fastify") {
    const { default: Fastify } = await import("fastify");
    const { webhookReceiver } = await import("@reportkit/fastify");
    const app = Fastify();
    // register()'s options carry no `S`: the rest goes in untyped, the handler after, typed.
    const { onDelivery, ...rest } = options;
    await app.register(webhookReceiver, { path: PATH, ...(rest as ReceiverOptions) });
    app.reportkit.onDelivery<S>(onDelivery);
    await app.listen({ port: 0, host: "127.0.0.1" });
    return (app.server.address() as AddressInfo).port;
  }
  if (framework === "hono") {
    const { serve } = await import("@hono/node-server");
    const { Hono } = await import("hono");
    const { webhookReceiver } = await import("@reportkit/hono");
    const app = new Hono();
    app.post(PATH, webhookReceiver(options));
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    return (server.address() as AddressInfo).port;
  }
  throw new Error(`receiver-process: unknown framework "${framework}" (express, fastify, hono)`);
}
