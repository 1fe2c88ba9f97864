import { webhookReceiver } from "@reportkit/express";
import express from "express";
import request from "supertest";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR, SAMPLE_DLR_TEXT, TOKEN } from "../fixtures/samples.js";

const AUTH = `Bearer ${TOKEN}`;
const DLR = JSON.stringify(SAMPLE_DLR);

function handlers() {
  return { onDelivery: vi.fn(), onCall: vi.fn() };
}

function pushDlr(app: express.Express, url = "/webhooks", body = DLR) {
  return request(app)
    .post(url)
    .set("authorization", AUTH)
    .set("content-type", "application/json")
    .send(body);
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("@reportkit/express: where it answers", () => {
  it("app.use(webhookReceiver({ path })) answers that path and passes every other one on", async () => {
    const h = handlers();
    const app = express();
    // The same report again and again: each must reach the handler to show it was routed.
    app.use(webhookReceiver({ path: "/webhooks", secret: TOKEN, dedupe: false, ...h }));
    app.get("/health", (_req, res) => {
      res.send("up");
    });
    expect((await pushDlr(app)).status).toBe(200);
    expect((await pushDlr(app, "/webhooks?attempt=2")).status).toBe(200);
    // As Express routes by default: one trailing slash, any case.
    expect((await pushDlr(app, "/webhooks/")).status).toBe(200);
    expect((await pushDlr(app, "/WebHooks")).status).toBe(200);
    expect((await request(app).get("/health")).text).toBe("up");
    expect((await pushDlr(app, "/webhooks/extra")).status).toBe(404);
    expect((await pushDlr(app, "/webhook")).status).toBe(404);
    expect(h.onDelivery).toHaveBeenCalledTimes(4);
  });

  it("app.use(path, webhookReceiver()) and app.post(path, webhookReceiver())", async () => {
    const h = handlers();
    const mounted = express();
    mounted.use("/webhooks", webhookReceiver({ secret: TOKEN, ...h }));
    const routed = express();
    routed.post("/webhooks", webhookReceiver({ secret: TOKEN, ...h }));
    expect((await pushDlr(mounted)).status).toBe(200);
    expect((await pushDlr(routed)).status).toBe(200);
    expect(h.onDelivery).toHaveBeenCalledTimes(2);
    // Core sees the full original URL, mount path included.
    expect(h.onDelivery.mock.calls[0]?.[1]).toMatchObject({ url: "/webhooks" });
  });

  it("app.use(mountPath, webhookReceiver()) takes the mount path only: the app's other routes under it answer", async () => {
    const h = handlers();
    const api = express.Router();
    api.get("/users", (_req, res) => {
      res.send("users");
    });
    const app = express();
    app.use("/api", webhookReceiver({ secret: TOKEN, dedupe: false, ...h }));
    app.use("/api", api);
    expect((await request(app).get("/api/users")).text).toBe("users");
    // Below the mount point and not a route of the app's: Express's own 404, not a 405 or 400.
    expect((await pushDlr(app, "/api/other")).status).toBe(404);
    expect((await pushDlr(app, "/api")).status).toBe(200);
    expect((await pushDlr(app, "/api/")).status).toBe(200);
    expect((await pushDlr(app, "/api?attempt=2")).status).toBe(200);
    const wrongMethod = await request(app).get("/api").set("authorization", AUTH);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe("POST");
    expect(h.onDelivery).toHaveBeenCalledTimes(3);
  });

  it("under a mount path with a composed template, the paths below it are the receiver's (its URL's own path)", async () => {
    const delivered = vi.fn();
    const app = express();
    app.use(
      "/hooks",
      webhookReceiver({
        secret: TOKEN,
        composed: { type: "delivery", method: "GET", url: "/hooks/{{id}}/{{status}}" },
        onDelivery: delivered,
      }),
    );
    const report = await request(app).get("/hooks/a-1/DELIVRD").set("authorization", AUTH);
    expect(report.status).toBe(200);
    expect(delivered.mock.calls[0]?.[0]).toMatchObject({ id: "a-1", status: "DELIVRD" });
    // Not the template's path: core says which path it expected.
    const other = await request(app).get("/hooks/a/b/c").set("authorization", AUTH);
    expect(other.status).toBe(400);
    expect(other.body.error.message).toContain('"/hooks/{{id}}/{{status}}"');
    expect(delivered).toHaveBeenCalledTimes(1);
  });

  it("`path` is the full path, so it works under a router mounted on a sub-path", async () => {
    const h = handlers();
    const api = express.Router();
    api.use(webhookReceiver({ path: "/api/v1/webhooks", secret: TOKEN, ...h }));
    api.get("/ping", (_req, res) => {
      res.send("pong");
    });
    const app = express();
    app.use("/api/v1", api);
    expect((await pushDlr(app, "/api/v1/webhooks")).status).toBe(200);
    expect((await request(app).get("/api/v1/ping")).text).toBe("pong");
    expect(h.onDelivery.mock.calls[0]?.[1]).toMatchObject({ url: "/api/v1/webhooks" });
  });

  it("hands every method to core (composed webhooks may GET or PUT): 405 with Allow here", async () => {
    const app = express();
    app.use(webhookReceiver({ path: "/webhooks", secret: TOKEN, ...handlers() }));
    const res = await request(app).patch("/webhooks").set("authorization", AUTH);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("POST");
  });

  it("rejects a `path` that is not a path", () => {
    expect(() => webhookReceiver({ path: "webhooks", secret: TOKEN, ...handlers() })).toThrow(
      /`path` must be a path starting with "\/"/,
    );
  });
});

describe("@reportkit/express: bodies other middleware touched", () => {
  it("parsers registered after the receiver never see its requests", async () => {
    const h = handlers();
    const app = express();
    app.use(webhookReceiver({ path: "/webhooks", secret: TOKEN, ...h }));
    app.use(express.json());
    app.post("/orders", (req, res) => {
      res.json(req.body);
    });
    expect((await pushDlr(app, "/webhooks", SAMPLE_DLR_TEXT)).status).toBe(200);
    expect((await request(app).post("/orders").send({ n: 1 })).body).toEqual({ n: 1 });
  });

  it("a stream some middleware drained without leaving a body: 400, no hang", async () => {
    const h = handlers();
    const app = express();
    app.use((req, _res, next) => {
      req.on("data", () => {});
      req.on("end", () => next());
    });
    app.use(webhookReceiver({ path: "/webhooks", secret: TOKEN, ...h }));
    const res = await pushDlr(app).timeout(5_000);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_json");
    expect(h.onDelivery).not.toHaveBeenCalled();
  });

  it("a body some middleware read into req.body as text is used", async () => {
    const h = handlers();
    const app = express();
    app.use(async (req, _res, next) => {
      let text = "";
      for await (const chunk of req) text += chunk;
      req.body = text;
      next();
    });
    app.use(webhookReceiver({ path: "/webhooks", secret: TOKEN, ...h }));
    expect((await pushDlr(app, "/webhooks", SAMPLE_DLR_TEXT)).status).toBe(200);
    expect(h.onDelivery).toHaveBeenCalledTimes(1);
  });

  it.each([false, true])(
    "express.urlencoded({ extended: %s }) before it: a JSON report sent as urlencoded (PHP curl's default) is still read",
    async (extended) => {
      const h = handlers();
      const app = express();
      app.use(express.urlencoded({ extended }));
      app.use(webhookReceiver({ path: "/webhooks", secret: TOKEN, ...h }));
      const body = JSON.stringify({ ...SAMPLE_DLR, custom: "a=b&c" });
      const res = await request(app)
        .post("/webhooks")
        .set("authorization", AUTH)
        .set("content-type", "application/x-www-form-urlencoded")
        .send(body);
      expect(res.status).toBe(200);
      expect(h.onDelivery.mock.calls[0]?.[0]).toMatchObject({ id: SAMPLE_DLR.id, custom: "a=b&c" });
    },
  );

  it("express.urlencoded({ extended: true }) before it: repeated and bracketed keys read as core reads them", async () => {
    const h = handlers();
    const app = express();
    app.use(express.urlencoded({ extended: true }));
    app.use(
      webhookReceiver({
        path: "/webhooks",
        secret: TOKEN,
        composed: {
          type: "delivery",
          url: "https://example.com/webhooks",
          body: { "data[id]": "{{id}}", "data[st]": "{{status}}" },
          format: "form",
        },
        onDelivery: h.onDelivery,
      }),
    );
    const res = await request(app)
      .post("/webhooks")
      .set("authorization", AUTH)
      .set("content-type", "application/x-www-form-urlencoded")
      .send("data%5Bid%5D=a%3A1&data%5Bst%5D=ACCEPTD&data%5Bst%5D=DELIVRD");
    expect(res.status).toBe(200);
    expect(h.onDelivery.mock.calls[0]?.[0]).toMatchObject({ id: "a:1", status: "DELIVRD" });
  });

  // What the adapter cannot change: an Express parser that fails answers before the receiver
  // runs. Still a non-2xx, so the provider retries and no report is acknowledged.
  it("express.json() before it refuses a body it cannot parse with Express's own 400", async () => {
    const h = handlers();
    const app = express();
    app.use(express.json());
    app.use(webhookReceiver({ path: "/webhooks", secret: TOKEN, ...h }));
    const res = await pushDlr(app, "/webhooks", SAMPLE_DLR_TEXT);
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(h.onDelivery).not.toHaveBeenCalled();
  });

  it("express.json() before it: the first report that reaches it says, once, to mount the receiver first", async () => {
    const h = handlers();
    const warned: string[] = [];
    const logger = { warn: (m: string) => void warned.push(m), error() {} };
    const app = express();
    app.use(express.json());
    app.use(webhookReceiver({ path: "/webhooks", secret: TOKEN, logger, ...h }));
    expect((await pushDlr(app)).status).toBe(200);
    expect((await pushDlr(app)).status).toBe(200);
    expect(warned).toEqual([
      expect.stringMatching(
        /a body parser ran before the receiver.*app\.use\(webhookReceiver\(\)\) before app\.use\(express\.json\(\)\)/,
      ),
    ]);
  });

  it("express.json()'s own 100kb limit applies before maxBodyBytes does", async () => {
    const h = handlers();
    const app = express();
    app.use(express.json());
    app.use(
      webhookReceiver({ path: "/webhooks", secret: TOKEN, body: { maxBytes: 1 << 20 }, ...h }),
    );
    const big = JSON.stringify({ ...SAMPLE_DLR, padding: "x".repeat(200_000) });
    expect((await pushDlr(app, "/webhooks", big)).status).toBe(413);
    expect(h.onDelivery).not.toHaveBeenCalled();
  });
});

describe("@reportkit/express: the token", () => {
  it("is read from REPORTKIT_SECRET when not given", async () => {
    vi.stubEnv("REPORTKIT_SECRET", TOKEN);
    const h = handlers();
    const app = express();
    app.use(webhookReceiver({ path: "/webhooks", ...h }));
    expect((await pushDlr(app)).status).toBe(200);
    const wrong = await request(app)
      .post("/webhooks")
      .set("authorization", "Bearer other")
      .send(JSON.stringify(SAMPLE_CALL));
    expect(wrong.status).toBe(401);
  });

  it("missing in both the options and the environment: construction fails, naming both", () => {
    vi.stubEnv("REPORTKIT_SECRET", "");
    expect(() => webhookReceiver({ path: "/webhooks", ...handlers() })).toThrow(
      /no secret given.*REPORTKIT_SECRET/,
    );
  });
});
