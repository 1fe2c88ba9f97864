// A receiver app as the README's SIGTERM recipe runs it: `shutdown-process.ts <express|hono|fastify>`.
// Each handler prints "handling <id>", waits HANDLER_MS, then prints "handled <id>". On SIGTERM
// it prints "closing" and closes as documented (Express and Hono: `await receiver.close()`, then
// `server.close()`; Fastify: `await app.close()`), and never calls process.exit: the test checks
// that nothing is left open and the process ends by itself.
import type { AddressInfo } from "node:net";
import type { DeliveryReport } from "@reportkit/core";

const [framework] = process.argv.slice(2);
const token = process.env.TOKEN ?? "";
const handlerMs = Number(process.env.HANDLER_MS ?? "1000");

async function onDelivery(report: DeliveryReport): Promise<void> {
  console.log(`handling ${report.id}`);
  await new Promise((resolve) => setTimeout(resolve, handlerMs));
  console.log(`handled ${report.id}`);
}
const options = { secret: token, onDelivery, logger: false as const };

async function start(): Promise<{ port: number; shutdown: () => Promise<void> }> {
  if (framework === "express") {
    const { default: express } = await import("express");
    const { webhookReceiver } = await import("@reportkit/express");
    const app = express();
    const receiver = webhookReceiver({ path: "/webhooks", ...options });
    app.use(receiver);
    const server = await new Promise<import("node:http").Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    return {
      port: (server.address() as AddressInfo).port,
      async shutdown() {
        await receiver.close();
        server.close();
      },
    };
  }
  if (framework === "hono") {
    const { serve } = await import("@hono/node-server");
    const { Hono } = await import("hono");
    const { webhookReceiver } = await import("@reportkit/hono");
    const app = new Hono();
    const receiver = webhookReceiver(options);
    app.post("/webhooks", receiver);
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    return {
      port: (server.address() as AddressInfo).port,
      async shutdown() {
        await receiver.close();
        server.close();
      },
    };
  }
  if (framework === "fastify") {
    const { default: Fastify } = await import("fastify");
    const { webhookReceiver } = await import("@reportkit/fastify");
    const app = Fastify();
    await app.register(webhookReceiver, options);
    await app.listen({ port: 0, host: "127.0.0.1" });
    return {
      port: (app.server.address() as AddressInfo).port,
      shutdown: () => app.close(),
    };
  }
  throw new Error(`shutdown-process: unknown framework ${framework}`);
}

const { port, shutdown } = await start();
process.once("SIGTERM", () => {
  console.log("closing");
  shutdown().then(() => console.log("closed"));
});
console.log(`listening on http://127.0.0.1:${port}`);
