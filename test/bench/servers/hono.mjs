import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { countHandled, path, token, withCredential } from "./common.mjs";
import { bearerCheck, validReport } from "./hand-written.mjs";
import { inlineWork, replyBody } from "./inline-work.mjs";

function listen(app) {
  return new Promise((resolve) => {
    serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => resolve(info.port));
  });
}

/** Hono's own JSON parsing and a 200, on @hono/node-server. */
export function bare() {
  const app = new Hono();
  app.post(path, async (c) => {
    await c.req.json();
    countHandled();
    return c.json({ ok: true });
  });
  return listen(app);
}

export function handWritten() {
  const authorized = bearerCheck(token);
  const app = new Hono();
  app.post(path, async (c) => {
    if (!authorized(c.req.header("authorization"))) return c.json({ ok: false }, 401);
    let body;
    try {
      body = await c.req.json();
    } catch {
      return c.json({ ok: false }, 400);
    }
    if (!validReport(body)) return c.json({ ok: false }, 400);
    countHandled();
    return c.json({ ok: true });
  });
  return listen(app);
}

/** reportkit's work written inline in the route (inline-work.mjs): the floor for it. */
export function inline() {
  const app = new Hono();
  app.post(path, async (c) => {
    const status = inlineWork(await c.req.text(), c.req.header("authorization"));
    return c.body(replyBody(status), status, { "content-type": "application/json" });
  });
  return listen(app);
}

export async function reportkit(options) {
  const { webhookReceiver } = await import("@reportkit/hono");
  const app = new Hono();
  app.post(path, webhookReceiver(withCredential(options)));
  return listen(app);
}

/** One receiver per composed webhook, each at its own path and with its template's method. */
export async function reportkitComposed(webhooks) {
  const { webhookReceiver } = await import("@reportkit/hono");
  const app = new Hono();
  for (const { path, template, handlers } of webhooks) {
    app.on(
      template.method,
      path,
      webhookReceiver(withCredential({ composed: template, ...handlers })),
    );
  }
  return listen(app);
}
