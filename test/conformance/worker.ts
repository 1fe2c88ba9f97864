// The Workers module the workerd target runs: Hono and @reportkit/hono, bundled by esbuild,
// with the token from the REPORTKIT_TOKEN binding (c.env). Test stages: a setup chosen per
// request by a header, the handler calls read back from /__calls, and a body that fails.
import type { ComposedTemplate } from "@reportkit/core";
import { type HonoHandler, webhookReceiver } from "@reportkit/hono";
import { Hono } from "hono";
import {
  type Call,
  FAULT_HEADER,
  failingStream,
  receiverOptions,
  SETUP_HEADER,
  type Setup,
  setupKey,
} from "./setup.js";

type Worker = { Bindings: { REPORTKIT_TOKEN: string } };

const calls: Call[] = [];
const handlers = new Map<string, HonoHandler<Worker>>();
const app = new Hono<Worker>();

app.get("/__calls", (c) => c.json(calls.splice(0)));

// Test stages on the body. A failing body fails after its first chunk. And since workerd
// under miniflare resets the loopback connection when a reply (an early 413, say) goes out
// before the upload was read to the end, so that the client fails mid-write instead of
// reading the reply, the receiver gets the body through a stream it can stop reading
// (cancel) while the rest of the upload is still read, after the reply was decided.
app.use("/webhooks", async (c, next) => {
  const raw = c.req.raw;
  if (raw.body === null) return next();
  const upload = raw.body.getReader();
  const body =
    c.req.header(FAULT_HEADER) === undefined
      ? new ReadableStream<Uint8Array>(
          {
            async pull(controller) {
              const { done, value } = await upload.read();
              if (done) controller.close();
              else controller.enqueue(value);
            },
          },
          { highWaterMark: 0 },
        )
      : failingStream((await upload.read()).value ?? new Uint8Array());
  c.req.raw = new Request(raw.url, { method: raw.method, headers: raw.headers, body });
  await next();
  while (!(await upload.read()).done) {}
});

app.all("/webhooks", (c) => {
  const setup = JSON.parse(c.req.header(SETUP_HEADER) ?? "{}") as Setup;
  let handler = handlers.get(setupKey(setup));
  if (handler === undefined) {
    handler = webhookReceiver<ComposedTemplate | undefined, Worker>(receiverOptions(setup, calls));
    handlers.set(setupKey(setup), handler);
  }
  return handler(c);
});

export default app;
