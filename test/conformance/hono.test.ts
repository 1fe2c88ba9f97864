import { webhookReceiver } from "@reportkit/hono";
import { Hono } from "hono";
import { TOKEN } from "../fixtures/samples.js";
import { type Call, receiverSetup } from "./setup.js";
import { runConformance, toReply, toRequest, withTokenEnv } from "./suite.js";

runConformance("@reportkit/hono (app.request)", async (setup) => {
  const calls: Call[] = [];
  const app = new Hono();
  const { options, attach } = receiverSetup(setup, calls);
  const handler =
    options === undefined
      ? withTokenEnv(() => webhookReceiver())
      : webhookReceiver({ token: TOKEN, ...options });
  attach(handler);
  // app.all, so that core answers every method (405 for all but the template's, or POST).
  app.all(setup.subpaths === true ? "/webhooks/*" : "/webhooks", handler);
  return {
    send: async (request) => toReply(await app.request(toRequest(request))),
    takeCalls: async () => calls.splice(0),
    close: async () => {},
  };
});
