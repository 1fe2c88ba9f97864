import { createReceiver } from "@reportkit/core";
import { TOKEN } from "../fixtures/samples.js";
import { type Call, receiverSetup } from "./setup.js";
import { runConformance, toReply, toRequest } from "./suite.js";

runConformance("@reportkit/core fetch", async (setup) => {
  const calls: Call[] = [];
  const { options, attach } = receiverSetup(setup, calls);
  const receiver = createReceiver({ secret: TOKEN, ...options });
  attach(receiver);
  return {
    send: async (request) => toReply(await receiver.fetch(toRequest(request))),
    takeCalls: async () => calls.splice(0),
    close: async () => {},
  };
});
