import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { webhookReceiver } from "@reportkit/hono";
import { Hono } from "hono";
import { TOKEN } from "../fixtures/samples.js";
import { type Call, receiverSetup, type Setup } from "./setup.js";
import { fetchReply, runConformance, toReply, toRequest, withTokenEnv } from "./suite.js";

/** The app for a setup: the receiver on /webhooks (or the paths under it), every method. */
function honoApp(setup: Setup, calls: Call[]): Hono {
  const app = new Hono();
  const { options, attach } = receiverSetup(setup, calls);
  const handler =
    options === undefined
      ? withTokenEnv(() => webhookReceiver())
      : webhookReceiver({ secret: TOKEN, ...options });
  attach(handler);
  // app.all, so that core answers every method (405 for all but the template's, or POST).
  app.all(setup.subpaths === true ? "/webhooks/*" : "/webhooks", handler);
  return app;
}

runConformance("@reportkit/hono (app.request)", async (setup) => {
  const calls: Call[] = [];
  const app = honoApp(setup, calls);
  return {
    send: async (request) => toReply(await app.request(toRequest(request))),
    takeCalls: async () => calls.splice(0),
    close: async () => {},
  };
});

// The same app on @hono/node-server, over a real socket. Node's request stream fails only
// when the client hangs up, so no body fails mid-way while a reply is awaited (as on Express);
// the real hang-up is in test/adapters/real-socket.test.ts.
runConformance(
  "@reportkit/hono on @hono/node-server (real socket)",
  async (setup) => {
    const calls: Call[] = [];
    const app = honoApp(setup, calls);
    const server = await new Promise<Server>((resolve) => {
      const started: Server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
        resolve(started),
      ) as Server;
    });
    const { port } = server.address() as AddressInfo;
    return {
      send: (spec) => fetchReply(`http://127.0.0.1:${port}`, spec),
      takeCalls: async () => calls.splice(0),
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
  },
  { failingBody: false },
);
