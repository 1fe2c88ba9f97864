// The sandbox's live feed and dashboard endpoints over real HTTP: the event stream, the
// dashboard's key, resend and retry-now, the request and reply in the push log (credentials
// masked), and the static page.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";
import {
  createSandbox,
  documentedJson,
  NOTIFICATION_EVENTS,
  type Sandbox,
} from "@reportkit/sandbox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listen, type Recorder, startRecorder, stop } from "./servers.js";

const API_TOKEN = "feed-api-token-31337";
const HOOK_SECRET = "feed-hook-secret-abcdef";
const auth = { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" };

let sandbox: Sandbox;
let recorder: Recorder | undefined;

beforeEach(async () => {
  sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 3_600_000 });
});

afterEach(async () => {
  await sandbox.close();
  await recorder?.close();
  recorder = undefined;
});

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(new URL(path, sandbox.baseUrl), {
    method,
    headers: auth,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

interface SseEvent {
  name: string;
  data: unknown;
}

/** Reads a server-sent event stream into `events` as it arrives. */
function readEvents(response: Response): { events: SseEvent[]; raw: () => string } {
  const events: SseEvent[] = [];
  let text = "";
  let parsed = 0;
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      text += decoder.decode(value, { stream: true });
      const blocks = text.slice(parsed).split("\n\n");
      for (const block of blocks.slice(0, -1)) {
        parsed += block.length + 2;
        const name = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (name !== undefined && data !== undefined) events.push({ name, data: JSON.parse(data) });
      }
    }
  })();
  return { events, raw: () => text };
}

function dashboardKey(): string {
  return new URL(sandbox.dashboardUrl).hash.replace(/^#key=/, "");
}

describe("sandbox event stream", () => {
  it("sends a snapshot, then webhook changes and every attempt with its masked request and reply", async () => {
    recorder = await startRecorder(() => 200);
    const response = await fetch(new URL("sandbox/events", sandbox.baseUrl), { headers: auth });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const { events, raw } = readEvents(response);
    await expect.poll(() => events.map((e) => e.name), { timeout: 15_000 }).toEqual(["snapshot"]);
    expect(events[0]?.data).toEqual({
      base_url: sandbox.baseUrl,
      notification_events: NOTIFICATION_EVENTS,
      webhooks: [],
      attempts: [],
    });

    const hook = await api("POST", "developer/webhooks", {
      name: "feed",
      uri: `${recorder.url}/hook?sig=${HOOK_SECRET}`,
      secret: HOOK_SECRET,
    });
    await expect
      .poll(() => events.map((e) => e.name), { timeout: 15_000 })
      .toEqual(["snapshot", "webhooks"]);
    expect(events[1]?.data).toEqual([
      expect.objectContaining({ id: hook.json.data.id, name: "feed", status: "1", composed: null }),
    ]);

    const sms = await api("POST", "sandbox/sms", { webhook_id: hook.json.data.id });
    await expect.poll(() => events.length, { timeout: 15_000 }).toBe(3);
    expect(events[2]).toEqual({
      name: "attempt",
      data: expect.objectContaining({
        report_id: sms.json.data.report_id,
        outcome: "delivered",
        status_code: 200,
        url: expect.stringContaining("sig=********"),
        request: {
          method: "POST",
          url: `${recorder.url}/hook?sig=********`,
          // As sent: the transport's headers too.
          headers: {
            "user-agent": "reportkit-sandbox/0.1 (provider simulator)",
            connection: "close",
            accept: "*/*",
            "content-type": "application/json",
            authorization: "Bearer ********",
            "content-length": String(Buffer.byteLength(documentedJson(sms.json.data.report))),
          },
          body: documentedJson(sms.json.data.report),
        },
        response_body: "200",
      }),
    });
    // The receiver really got the secret; no attempt the sandbox serves shows it (the webhook's
    // uri is served as given, like the provider does).
    expect(recorder.requests[0]?.headers.authorization).toBe(`Bearer ${HOOK_SECRET}`);
    expect(raw()).toContain("event: attempt");
    expect(JSON.stringify(events.filter((e) => e.name === "attempt"))).not.toContain(HOOK_SECRET);
    const log = await api("GET", "sandbox/push-attempts");
    expect(JSON.stringify(log.json)).not.toContain(HOOK_SECRET);
    expect(log.json.data[0].url).toBe(`${recorder.url}/hook?sig=********`);
    expect(log.json.data[0].request.headers.authorization).toBe("Bearer ********");

    // A deleted webhook's attempts stay masked; close() ends the stream.
    await api("DELETE", `developer/webhooks/${hook.json.data.id}`);
    const after = await api("GET", "sandbox/push-attempts");
    expect(JSON.stringify(after.json)).not.toContain(HOOK_SECRET);
    await sandbox.close();
    await expect.poll(() => events.at(-1)?.name, { timeout: 15_000 }).toBe("webhooks");
  });

  it("refuses the stream without the bearer token", async () => {
    const response = await fetch(new URL("sandbox/events", sandbox.baseUrl));
    expect(response.status).toBe(401);
    expect(
      (await fetch(new URL("sandbox/events", sandbox.baseUrl), { method: "POST", headers: auth }))
        .status,
    ).toBe(405);
  });
});

describe("dashboard endpoints", () => {
  it("serves the page with a strict CSP, and its API only with the per-run key", async () => {
    const url = new URL(sandbox.dashboardUrl);
    expect(url.pathname).toBe("/dashboard/");
    expect(url.hash).toMatch(/^#key=[A-Za-z0-9_-]{24}$/);
    expect(sandbox.dashboardUrl).not.toContain(API_TOKEN);

    const page = await fetch(new URL("/dashboard/", sandbox.baseUrl));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="app.js"></script>');
    for (const [file, type] of [
      ["app.js", "text/javascript; charset=utf-8"],
      ["app.css", "text/css; charset=utf-8"],
    ]) {
      const asset = await fetch(new URL(`/dashboard/${file}`, sandbox.baseUrl));
      expect([asset.status, asset.headers.get("content-type")]).toEqual([200, type]);
    }
    const root = await fetch(new URL("/", sandbox.baseUrl), { redirect: "manual" });
    expect([root.status, root.headers.get("location")]).toEqual([302, "/dashboard/"]);
    expect((await fetch(new URL("/dashboard/nope.js", sandbox.baseUrl))).status).toBe(404);

    const list = (headers: Record<string, string>) =>
      fetch(new URL("/dashboard/api/developer/webhooks", sandbox.baseUrl), { headers });
    expect((await list({})).status).toBe(401);
    expect((await list({ "x-reportkit-dashboard-key": "guess" })).status).toBe(401);
    // The API token is not the dashboard's key, and the key is not the API token.
    expect((await list(auth)).status).toBe(401);
    expect((await list({ "x-reportkit-dashboard-key": dashboardKey() })).status).toBe(200);
    const apiWithKey = await fetch(new URL("developer/webhooks", sandbox.baseUrl), {
      headers: { authorization: `Bearer ${dashboardKey()}` },
    });
    expect(apiWithKey.status).toBe(401);

    const stream = await fetch(
      new URL(`/dashboard/api/sandbox/events?key=${dashboardKey()}`, sandbox.baseUrl),
    );
    expect(stream.status).toBe(200);
    await stream.body?.cancel();
  });

  it("ships the page's files in the package tarball, next to dist/", () => {
    const dir = fileURLToPath(new URL("../../packages/sandbox/", import.meta.url));
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd: dir, encoding: "utf8" }),
    ) as { files: { path: string }[] }[];
    const files = (packed[0]?.files ?? []).map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        "dashboard/index.html",
        "dashboard/app.js",
        "dashboard/app.css",
        "src/dashboard-server.ts",
      ]),
    );
  });

  it("serves every file of the page (its ES modules too) with its type, and nothing beside them", async () => {
    const dir = new URL("../../packages/sandbox/dashboard/", import.meta.url);
    const files = readdirSync(dir).sort();
    const types: Record<string, string> = {
      html: "text/html; charset=utf-8",
      css: "text/css; charset=utf-8",
      js: "text/javascript; charset=utf-8",
    };
    const modules = files.filter((f) => f.endsWith(".js"));
    expect(modules.length).toBeGreaterThan(1);
    for (const file of files) {
      const asset = await fetch(new URL(`/dashboard/${file}`, sandbox.baseUrl));
      const type = types[file.slice(file.lastIndexOf(".") + 1)];
      expect([file, asset.status, asset.headers.get("content-type")]).toEqual([file, 200, type]);
      expect(asset.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(await asset.text()).toBe(readFileSync(new URL(file, dir), "utf8"));
    }
    // Every module the scripts import is a file of the page (served above, same origin).
    for (const file of modules) {
      const source = readFileSync(new URL(file, dir), "utf8");
      for (const [, imported] of source.matchAll(/^import .* from "\.\/([^"]+)";$/gm)) {
        expect([file, files.includes(imported as string)]).toEqual([file, true]);
      }
    }
    // Only those names: no way out of dashboard/, no property of a plain object.
    const status = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const { hostname, port } = new URL(sandbox.baseUrl);
        http
          .get({ hostname, port, path }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on("error", reject);
      });
    for (const path of [
      "/dashboard/../package.json",
      "/dashboard/%2e%2e/package.json",
      "/dashboard/..%2fpackage.json",
      "/dashboard/constructor",
      "/dashboard/__proto__",
      "/dashboard/toString",
      "/dashboard/dashboard-server.ts",
    ]) {
      expect([path, await status(path)]).toEqual([path, 404]);
    }
  });

  it("packs every file of the page", () => {
    const dir = fileURLToPath(new URL("../../packages/sandbox/", import.meta.url));
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd: dir, encoding: "utf8" }),
    ) as { files: { path: string }[] }[];
    const files = (packed[0]?.files ?? []).map((f) => f.path);
    const page = readdirSync(new URL("dashboard/", `file://${dir}`)).map((f) => `dashboard/${f}`);
    expect(page.length).toBeGreaterThan(3);
    expect(files).toEqual(expect.arrayContaining(page));
  });

  it("points the browser at loopback when listening on every address", async () => {
    const everywhere = await createSandbox({ token: API_TOKEN, host: "0.0.0.0" });
    try {
      const url = new URL(everywhere.dashboardUrl);
      expect(url.host).toBe(`127.0.0.1:${everywhere.port}`);
      expect((await fetch(new URL("/dashboard/", url))).status).toBe(200);
    } finally {
      await everywhere.close();
    }
  });

  it('accepts a doubled slash after the base URL, as in "$REPORTKIT_BASE_URL/sandbox/sms"', async () => {
    const response = await fetch(`${sandbox.baseUrl}/developer/webhooks`, { headers: auth });
    expect(response.status).toBe(200);
  });
});

describe("resend and retry now", () => {
  it("retries a waiting report at once, resends any report, and says when it cannot", async () => {
    recorder = await startRecorder((n) => (n === 0 ? 500 : 200));
    const hook = await api("POST", "developer/webhooks", { name: "r", uri: recorder.url });
    const sms = await api("POST", "sandbox/sms", { webhook_id: hook.json.data.id });
    const id = sms.json.data.report_id as string;
    await expect
      .poll(() => sandbox.attempts().map((a) => a.outcome), { timeout: 15_000 })
      .toEqual(["retrying"]);
    expect(sandbox.attempts()[0]?.responseBody).toBe("500");

    const retried = await api("POST", `sandbox/reports/${encodeURIComponent(id)}/retry-now`);
    expect(retried).toEqual({
      status: 200,
      json: expect.objectContaining({
        message: "Retrying now",
        data: { report_id: id, retried: 1 },
      }),
    });
    await expect
      .poll(() => sandbox.attempts().map((a) => [a.attempt, a.outcome]), { timeout: 15_000 })
      .toEqual([
        [1, "retrying"],
        [2, "delivered"],
      ]);
    const again = await api("POST", `sandbox/reports/${encodeURIComponent(id)}/retry-now`);
    expect(again.status).toBe(409);
    expect(again.json.message).toBe(`Report ${id} is not waiting for a retry.`);

    const resent = await api("POST", `sandbox/reports/${encodeURIComponent(id)}/resend`);
    expect(resent.status).toBe(200);
    expect(resent.json.data).toMatchObject({ report_id: id, pushed: true });
    await sandbox.settled();
    // Documented payloads end in a trailing comma: the id is read from the text.
    expect(recorder.requests.map((r) => /"id": "([^"]+)"/.exec(r.text)?.[1])).toEqual([id, id, id]);
    expect(sandbox.attempts().at(-1)).toMatchObject({ attempt: 1, outcome: "delivered" });

    expect((await api("POST", "sandbox/reports/nope/resend")).status).toBe(404);
    expect((await api("POST", "sandbox/reports/nope/retry-now")).status).toBe(404);
    expect((await api("GET", `sandbox/reports/${encodeURIComponent(id)}/resend`)).status).toBe(405);
    await api("DELETE", `developer/webhooks/${hook.json.data.id}`);
    const gone = await api("POST", `sandbox/reports/${encodeURIComponent(id)}/resend`);
    expect(gone.status).toBe(422);
    expect(gone.json.errors.report_id).toEqual(["The webhook of this report was deleted."]);
  });
});

describe("the receiver's reply in the log", () => {
  it("keeps the first 16 KiB of a long reply, read to its end", async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      res.writeHead(500, { "content-type": "text/html" });
      res.write("<h1>".padEnd(10_000, "x"));
      setTimeout(() => res.end("".padEnd(30_000, "y")), 20);
    });
    const url = await listen(server);
    try {
      const hook = await api("POST", "developer/webhooks", { name: "long", uri: url });
      sandbox.sendSms({ webhookId: hook.json.data.id });
      await expect.poll(() => sandbox.attempts().length, { timeout: 15_000 }).toBe(1);
      const [attempt] = sandbox.attempts();
      expect(attempt).toMatchObject({ statusCode: 500, outcome: "retrying" });
      expect(attempt?.responseBody).toHaveLength(16_384);
      expect(attempt?.responseBody?.endsWith("yyy")).toBe(true);
    } finally {
      await stop(server);
    }
  });
});
