import type { AddressInfo } from "node:net";
import { webhookReceiver } from "@reportkit/express";
import type { Express, RequestHandler } from "express";
import request from "supertest";
import { TOKEN } from "../fixtures/samples.js";
import type { ExpressParser } from "./cases.js";
import { type Call, receiverSetup } from "./setup.js";
import { bodyBytes, chunksOf, type OpenApp, type Routes, withTokenEnv } from "./suite.js";

/** What this file uses of the express module, Express 5 and 4 alike. */
export interface ExpressModule {
  (): Express;
  json(options?: object): RequestHandler;
  urlencoded(options?: object): RequestHandler;
  text(options?: object): RequestHandler;
  raw(options?: object): RequestHandler;
}

function parser(express: ExpressModule, name: ExpressParser): RequestHandler {
  switch (name) {
    case "json":
      return express.json();
    case "urlencoded":
      return express.urlencoded({ extended: false });
    case "urlencoded-extended":
      return express.urlencoded({ extended: true });
    case "text":
      return express.text();
    case "text-any":
      return express.text({ type: "*/*" });
    case "raw-any":
      return express.raw({ type: "*/*" });
  }
}

const asIs = ((bytes: Buffer) => bytes) as unknown as (body: unknown) => string;

/**
 * How the app mounts the receiver, as the README shows:
 * - "path option": `app.use(webhookReceiver({ path: "/webhooks" }))`; `path` is one exact path,
 *   so for a setup with subpaths the receiver is mounted without it, `app.use(webhookReceiver())`;
 * - "mount path": `app.use("/webhooks", webhookReceiver())`, subpaths included;
 * - "post route": `app.post("/webhooks", webhookReceiver())`, which only ever sees POST to
 *   /webhooks (see POST_ROUTE).
 */
export type ExpressMount = "path option" | "mount path" | "post route";

/**
 * What every Express mount can send: no body that fails mid-way while the client still waits
 * for the reply. Node's request stream fails only when the client hangs up (then there is no
 * one to answer), and making it fail otherwise meant faking its events; the real hang-up is in
 * test/adapters/real-socket.test.ts.
 */
export const EXPRESS: Routes = { failingBody: false };

/** What a `post route` mount hands to the receiver: the cases it applies to. */
export const POST_ROUTE: Routes = { ...EXPRESS, methods: ["POST"], exactPath: true };

/**
 * An Express app with the receiver mounted the given way, on a real socket, driven by
 * supertest. Every mount is a conformance target of its own.
 */
export function expressTarget(express: ExpressModule, mount: ExpressMount): OpenApp {
  return async (setup, parsers = []) => {
    const calls: Call[] = [];
    const app = express();
    for (const name of parsers) app.use(parser(express, name));
    const { options, attach } = receiverSetup(setup, calls);
    // The path option for an exact path; bare (app.use(webhookReceiver())) it takes /webhooks
    // and the paths under it; mounted, whatever Express routes to it.
    const path = mount === "path option" && setup.subpaths !== true ? "/webhooks" : undefined;
    const handler =
      options === undefined
        ? withTokenEnv(() => webhookReceiver())
        : webhookReceiver({ secret: TOKEN, ...options, ...(path === undefined ? {} : { path }) });
    attach(handler);
    if (mount === "post route") app.post("/webhooks", handler);
    else if (mount === "mount path") app.use("/webhooks", handler);
    else app.use(handler);
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      async send(spec) {
        const method = spec.method.toLowerCase() as "get" | "post" | "put" | "delete";
        const test = request(origin)[method](spec.url).set(spec.headers);
        const chunks = chunksOf(spec);
        if (chunks !== undefined) for (const chunk of chunks) test.write(Buffer.from(chunk));
        const body = chunks === undefined ? bodyBytes(spec) : undefined;
        // The bytes exactly as given: superagent would serialise a Buffer under a JSON type.
        const res = await (body === undefined
          ? test
          : test.serialize(asIs).send(Buffer.from(body)));
        return {
          status: res.status,
          headers: res.headers as Record<string, string>,
          body: res.text,
        };
      },
      takeCalls: async () => calls.splice(0),
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  };
}
