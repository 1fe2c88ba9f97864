// The conformance table's target for the NestJS module on one platform: an app per setup,
// reports sent over a real socket. Handlers given in a setup's options go in forRoot's options;
// attached ones are decorated methods of the app's providers (found at start-up).
import { ReportkitModule, ReportkitReceiver } from "@reportkit/nestjs";
import { type Call, receiverSetup } from "../conformance/setup.js";
import {
  bodyBytes,
  bodyInit,
  chunksOf,
  isFailing,
  type OpenApp,
  toReply,
  withTokenEnv,
} from "../conformance/suite.js";
import { TOKEN } from "../fixtures/samples.js";
import { handlerProviders } from "./handler-providers.js";
import { FAULT_HEADER, type Platform, startNestApp } from "./nest-app.js";

export function nestTarget(platform: Platform, rawBody?: boolean): OpenApp {
  return async (setup) => {
    const calls: Call[] = [];
    const { options, attach } = receiverSetup(setup, calls);
    const attached: { onDelivery?: never; onCall?: never; onUnsubscribe?: never; onEvent?: never } =
      {};
    attach({
      close: async () => {}, // the module's receiver is closed below, once the app runs
      onDelivery: (fn: never) => {
        attached.onDelivery = fn;
      },
      onCall: (fn: never) => {
        attached.onCall = fn;
      },
      onUnsubscribe: (fn: never) => {
        attached.onUnsubscribe = fn;
      },
      onEvent: (fn: never) => {
        attached.onEvent = fn;
      },
    });
    const path = setup.subpaths === true ? "/webhooks/*" : "/webhooks";
    const start = () =>
      startNestApp({
        platform,
        ...(rawBody === undefined ? {} : { rawBody }),
        imports: [
          options === undefined
            ? ReportkitModule.forRoot()
            : ReportkitModule.forRoot({ secret: TOKEN, ...options, path }),
        ],
        providers: handlerProviders(attached),
      });
    // The zero-argument form reads REPORTKIT_SECRET when the app starts.
    const running = await (options === undefined ? withTokenEnv(start) : start());
    // A closed setup: the receiver closed, the app still serving (as during app.close()).
    if (setup.closed === true) await running.app.get(ReportkitReceiver).close();
    return {
      async send(spec) {
        const body = chunksOf(spec) === undefined ? bodyBytes(spec) : bodyInit(spec);
        const headers = isFailing(spec) ? { ...spec.headers, [FAULT_HEADER]: "1" } : spec.headers;
        const response = await fetch(`${running.origin}${spec.url}`, {
          method: spec.method,
          headers,
          ...(body === undefined ? {} : { body, duplex: "half" }),
        } as RequestInit);
        return toReply(response);
      },
      takeCalls: async () => calls.splice(0),
      close: () => running.close(),
    };
  };
}
