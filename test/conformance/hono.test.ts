import { webhookReceiver } from "@reportkit/hono";
import { Hono } from "hono";
import { TOKEN } from "../fixtures/samples.js";
import { type Call, receiverOptions } from "./setup.js";
import { runConformance, toReply, toRequest } from "./suite.js";

runConformance("@reportkit/hono (app.request)", async (setup) => {
  const calls: Call[] = [];
  const app = new Hono();
  // app.all, so that core answers every method (405 for all but the template's, or POST).
  app.all(
    setup.subpaths === true ? "/webhooks/*" : "/webhooks",
    webhookReceiver({ token: TOKEN, ...receiverOptions(setup, calls) }),
  );
  return {
    send: async (request) => toReply(await app.request(toRequest(request))),
    takeCalls: async () => calls.splice(0),
    close: async () => {},
  };
});
