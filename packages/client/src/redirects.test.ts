import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "./create-client.js";
import { ApiError, RequestFailedError } from "./errors.js";

const API_TOKEN = "api-token-7f3c9e21";
const WEBHOOK_TOKEN = "hook-token-5b8d2a44";

interface Received {
  method: string;
  url: string;
  body: string;
}

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A real server on a free loopback port that records each request and answers with `reply`. */
async function server(
  reply: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void,
) {
  const received: Received[] = [];
  const s = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", body });
      reply(req, res, body);
    });
  });
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return { origin, received };
}

const created = {
  status: "OK",
  code: 200,
  message: "Created successfully",
  data: {
    id: "9a7b4c2e-3f1d-4e5a-8b6c-0d9e8f7a6b5c",
    name: "local",
    uri: "http://127.0.0.1:3000/webhooks",
    secret: null,
    verification_code: "********",
    status: "1",
    created_at: "2022-10-19T07:40:13.000000Z",
    updated_at: "2022-10-19T07:40:13.000000Z",
  },
};

describe("redirects of a request with a body", () => {
  it("refuses a 307 to another origin: the body with the webhook's token never leaves", async () => {
    const elsewhere = await server((_req, res) => res.writeHead(200).end("{}"));
    const api = await server((_req, res) =>
      res.writeHead(307, { location: `${elsewhere.origin}/api/v2/developer/webhooks` }).end(),
    );
    const client = createClient({ baseUrl: `${api.origin}/api/v2/`, token: API_TOKEN });
    const creating = client.webhooks.create({
      name: "local",
      uri: "http://127.0.0.1:3000/webhooks",
      token: WEBHOOK_TOKEN,
    });
    await expect(creating).rejects.toThrow(RequestFailedError);
    await expect(creating).rejects.toThrow(
      `POST developer/webhooks failed: the server redirected it (307) to another origin, ${elsewhere.origin}, which was not followed`,
    );
    expect(api.received).toHaveLength(1);
    expect(elsewhere.received).toEqual([]);
  });

  it("follows a 308 within the origin, body and all", async () => {
    const api = await server((req, res) => {
      if (req.url === "/api/v2/developer/webhooks") {
        res.writeHead(308, { location: "/v2/developer/webhooks" }).end();
      } else
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(created));
    });
    const client = createClient({ baseUrl: `${api.origin}/api/v2/`, token: API_TOKEN });
    const webhook = await client.webhooks.create({ name: "local", uri: created.data.uri });
    expect(webhook.id).toBe(created.data.id);
    expect(api.received.map((r) => [r.method, r.url])).toEqual([
      ["POST", "/api/v2/developer/webhooks"],
      ["POST", "/v2/developer/webhooks"],
    ]);
    expect(JSON.parse(api.received[1]?.body ?? "")).toMatchObject({ name: "local" });
  });
});

describe("redacting echoed credentials", () => {
  it("redacts the API token and the webhook's token when echoed URL-encoded or in base64", async () => {
    const echo = [
      encodeURIComponent(`${API_TOKEN}/+ x`),
      Buffer.from(API_TOKEN).toString("base64"),
      Buffer.from(`Bearer ${API_TOKEN}`).toString("base64url"),
      Buffer.from(`user:${WEBHOOK_TOKEN}`).toString("base64"),
      encodeURIComponent(WEBHOOK_TOKEN).toUpperCase(),
    ].join(" ");
    const api = await server((_req, res) =>
      res
        .writeHead(422, { "content-type": "application/json" })
        .end(JSON.stringify({ status: "Error", code: 422, message: `Rejected: ${echo}` })),
    );
    const client = createClient({ baseUrl: `${api.origin}/api/v2/`, token: API_TOKEN });
    const error = await client.webhooks
      .create({ name: "x", uri: "http://127.0.0.1:3000/", token: WEBHOOK_TOKEN })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const { message, body } = error as ApiError;
    const shown = `${message}\n${JSON.stringify(body)}`;
    for (const leaked of [
      API_TOKEN,
      encodeURIComponent(API_TOKEN),
      Buffer.from(API_TOKEN).toString("base64").slice(0, 20),
      "YXBpLXRva2VuLTdmM2M5ZTIx",
      Buffer.from(`user:${WEBHOOK_TOKEN}`).toString("base64").slice(8, 28),
      WEBHOOK_TOKEN.toUpperCase(),
    ]) {
      expect(shown).not.toContain(leaked);
    }
    expect(message).toMatch(
      /^POST developer\/webhooks failed with 422 Unprocessable Entity: Rejected: \[token\]/,
    );
    expect(message.match(/\[token\]/g)).toHaveLength(5);
  });
});
