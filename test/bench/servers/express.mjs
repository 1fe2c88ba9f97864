import express from "express";
import { countHandled, path, token, withCredential } from "./common.mjs";
import { bearerCheck, validReport } from "./hand-written.mjs";

function listen(app) {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, "127.0.0.1", (error) => {
      if (error) reject(error);
      else resolve(server.address().port);
    });
  });
}

/** Express's own JSON parsing and a 200. */
export function bare() {
  const app = express();
  app.post(path, express.json(), (_req, res) => {
    countHandled();
    res.json({ ok: true });
  });
  return listen(app);
}

export function handWritten() {
  const authorized = bearerCheck(token);
  const app = express();
  app.post(
    path,
    (req, res, next) => {
      if (authorized(req.headers.authorization)) next();
      else res.status(401).json({ ok: false });
    },
    express.json(),
    (req, res) => {
      if (!validReport(req.body)) {
        res.status(400).json({ ok: false });
        return;
      }
      countHandled();
      res.json({ ok: true });
    },
  );
  return listen(app);
}

export async function reportkit(options) {
  const { webhookReceiver } = await import("@reportkit/express");
  const app = express();
  app.use(webhookReceiver(withCredential({ path, ...options })));
  return listen(app);
}

/** One receiver per composed webhook, each at its own path. */
export async function reportkitComposed(webhooks) {
  const { webhookReceiver } = await import("@reportkit/express");
  const app = express();
  for (const { path, template, handlers } of webhooks) {
    app.use(webhookReceiver(withCredential({ path, composed: template, ...handlers })));
  }
  return listen(app);
}
