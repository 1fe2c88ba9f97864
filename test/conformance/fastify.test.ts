import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import webhookReceiver from "@reportkit/fastify";
import Fastify, { type FastifyInstance } from "fastify";
import { TOKEN } from "../fixtures/samples.js";
import type { RequestSpec } from "./cases.js";
import { type Call, FAULT_HEADER, receiverSetup, type Setup } from "./setup.js";
import {
  bodyBytes,
  chunksOf,
  fetchReply,
  isFailing,
  type OpenApp,
  runConformance,
  withTokenEnv,
} from "./suite.js";

async function fastifyApp(setup: Setup, calls: Call[]): Promise<FastifyInstance> {
  const app = Fastify();
  // Test stage (the host's own hook, as an app could have): a body that fails mid-way.
  app.addHook("preParsing", async (request, _reply, payload) => {
    if (request.headers[FAULT_HEADER] === undefined) return payload;
    const chunks = payload[Symbol.asyncIterator]();
    return Readable.from(
      (async function* () {
        const first = await chunks.next();
        if (first.done !== true) yield first.value;
        throw new Error("connection reset mid-body");
      })(),
    );
  });
  try {
    // A construction error (an invalid template) rejects here.
    const { options, attach } = receiverSetup(setup, calls);
    if (options === undefined) {
      // The zero-argument form: path /webhooks, the secret from REPORTKIT_SECRET.
      await withTokenEnv(async () => {
        await app.register(webhookReceiver);
      });
    } else {
      await app.register(webhookReceiver, {
        path: setup.subpaths === true ? "/webhooks/*" : "/webhooks",
        secret: TOKEN,
        ...options,
      });
    }
    attach(app.reportkit);
  } catch (error) {
    await app.close().catch(() => {});
    throw error;
  }
  return app;
}

function headersOf(spec: RequestSpec): Record<string, string> {
  return isFailing(spec) ? { ...spec.headers, [FAULT_HEADER]: "1" } : spec.headers;
}

const inject: OpenApp = async (setup) => {
  const calls: Call[] = [];
  const app = await fastifyApp(setup, calls);
  await app.ready();
  return {
    async send(spec) {
      const chunks = chunksOf(spec);
      const bytes = bodyBytes(spec);
      const payload =
        chunks !== undefined
          ? Readable.from(chunks.map((chunk) => Buffer.from(chunk)))
          : bytes && Buffer.from(bytes);
      const res = await app.inject({
        method: spec.method as "POST",
        url: spec.url,
        headers: headersOf(spec),
        ...(payload === undefined ? {} : { payload }),
      });
      return {
        status: res.statusCode,
        headers: res.headers as Record<string, string>,
        body: res.body,
      };
    },
    takeCalls: async () => calls.splice(0),
    close: () => app.close(),
  };
};

const socket: OpenApp = async (setup) => {
  const calls: Call[] = [];
  const app = await fastifyApp(setup, calls);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as AddressInfo;
  return {
    send: (spec) => fetchReply(`http://127.0.0.1:${port}`, spec, headersOf(spec)),
    takeCalls: async () => calls.splice(0),
    close: () => app.close(),
  };
};

runConformance("@reportkit/fastify (inject)", inject);
runConformance("@reportkit/fastify (real socket)", socket);
