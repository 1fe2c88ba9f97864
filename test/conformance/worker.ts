// The Workers module the workerd target runs: Hono and @reportkit/hono, bundled by esbuild,
// with the token from the REPORTKIT_SECRET binding (c.env). Test stages: an app (a receiver
// and its setup) opened per case by /__setup (which answers a construction error as a 500) and
// dropped by /__close, chosen per request by a header, the handler calls read back from
// /__calls, and a body that fails. Each case gets a receiver of its own, as on every other
// target, so dedupe stores and queues start empty.
import type { ComposedTemplate } from "@reportkit/core";
import { type HonoHandler, webhookReceiver } from "@reportkit/hono";
import { Hono } from "hono";
import {
  APP_HEADER,
  type Call,
  FAULT_HEADER,
  failingStream,
  receiverSetup,
  type Setup,
} from "./setup.js";

type Worker = { Bindings: { REPORTKIT_SECRET: string } };

const calls: Call[] = [];
const apps = new Map<string, { setup: Setup; handler: HonoHandler<Worker> }>();
let opened = 0;
const app = new Hono<Worker>();

app.get("/__calls", (c) => c.json(calls.splice(0)));

// Builds the receiver for a setup, as the test's "open" does on every other target, and answers
// its id; a setup the receiver refuses comes back as a 500 with the construction error.
app.post("/__setup", async (c) => {
  const setup = (await c.req.json()) as Setup;
  try {
    // The secret from the REPORTKIT_SECRET binding (c.env), in both forms.
    const { options, attach } = receiverSetup(setup, calls);
    const handler =
      options === undefined
        ? webhookReceiver<undefined, Worker>()
        : webhookReceiver<ComposedTemplate | undefined, Worker>(options);
    attach(handler);
    const id = String(++opened);
    apps.set(id, { setup, handler });
    return c.json({ id });
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    return c.json({ constructionError: { name, message } }, 500);
  }
});

app.post("/__close", (c) => c.json({ closed: apps.delete(c.req.query("id") ?? "") }));

// Test stages on the body. A failing body fails after its first chunk. And since workerd
// under miniflare resets the loopback connection when a reply (an early 413, say) goes out
// before the upload was read to the end, so that the client fails mid-write instead of
// reading the reply, the receiver gets the body through a stream it can stop reading
// (cancel) while the rest of the upload is still read, after the reply was decided.
app.use("/webhooks/*", async (c, next) => {
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

// "/webhooks/*" matches /webhooks itself too; only a subpaths setup mounts the receiver below.
app.all("/webhooks/*", (c) => {
  const opened = apps.get(c.req.header(APP_HEADER) ?? "");
  if (opened === undefined) return c.text("conformance: app not opened by /__setup", 500);
  if (opened.setup.subpaths !== true && c.req.path !== "/webhooks") return c.notFound();
  return opened.handler(c);
});

export default app;
