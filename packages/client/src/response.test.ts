// How the client reads what a real server sends: the response envelope (provider-interface.md
// 2.2), the cap on the response size, and the token redacted from everything an error keeps.
// Real HTTP servers on localhost, the global fetch.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "./create-client.js";
import { ApiError, InvalidResponseError, ResponseTooLargeError } from "./errors.js";

const TOKEN = "Secret-Api-Token-4242";
const ID = "9a7b4c2e-3f1d-4e5a-8b6c-0d9e8f7a6b5c";
const WIRE = {
  id: ID,
  name: "orders",
  uri: "https://my.app/reports",
  secret: "********",
  verification_code: "********",
  status: 1,
  created_at: "2022-10-19T07:40:13.000000Z",
  updated_at: "2022-10-19T07:40:13.000000Z",
};

interface Api {
  baseUrl: string;
  /** Requests seen, "METHOD /path". */
  requests: string[];
  close(): Promise<void>;
}

let api: Api | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** A real API server: `answer` gets the request count and writes the response. */
async function serve(
  answer: (res: http.ServerResponse, n: number, req: http.IncomingMessage) => void,
): Promise<Api> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    req.on("end", () => answer(res, requests.length - 1, req));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  api = {
    baseUrl: `http://127.0.0.1:${port}/api/v2/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return api;
}

function sendJson(res: http.ServerResponse, body: unknown, status = 200): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

function clientOf(server: Api, extra: { maxResponseBytes?: number; retries?: number } = {}) {
  return createClient({ baseUrl: server.baseUrl, token: TOKEN, retryBaseMs: 1, ...extra });
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error,
  );
}

describe("the response envelope", () => {
  it("HTTP 200 with status Error and code 404 fails delete() and get() with that code", async () => {
    const server = await serve((res) =>
      sendJson(res, { status: "Error", code: 404, message: `Webhook ${ID} not found.`, data: [] }),
    );
    const client = clientOf(server);

    const deleting = (await failure(client.webhooks.delete(ID))) as ApiError;
    expect(deleting).toBeInstanceOf(ApiError);
    expect(deleting).toMatchObject({ status: 200, code: 404 });
    expect(deleting.message).toBe(
      `DELETE developer/webhooks/${ID} failed with 404 (the response envelope's code; HTTP status 200 OK): Webhook ${ID} not found.`,
    );

    const getting = await failure(client.webhooks.get(ID));
    expect(getting).toBeInstanceOf(ApiError);
    expect(getting).not.toBeInstanceOf(InvalidResponseError);
    expect(getting).toMatchObject({ status: 200, code: 404 });
    // A 404 is not retried, whether HTTP or envelope says it.
    expect(server.requests).toHaveLength(2);
  });

  it("a status other than OK fails even without a code, and says which status", async () => {
    const server = await serve((res) =>
      sendJson(res, { status: "error", message: "Something went wrong", data: { ...WIRE } }),
    );
    const error = (await failure(clientOf(server).webhooks.get(ID))) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 200, code: 200 });
    expect(error.message).toBe(
      `GET developer/webhooks/${ID} failed: the response envelope says status "error" (HTTP status 200 OK): Something went wrong`,
    );
  });

  it("status false and a digit-string code are read too", async () => {
    const server = await serve((res, n) =>
      sendJson(
        res,
        n === 0 ? { status: false, message: "nope", data: [] } : { code: "422", data: [] },
      ),
    );
    const client = clientOf(server);
    await expect(client.webhooks.delete(ID)).rejects.toMatchObject({ code: 200 });
    await expect(client.webhooks.delete(ID)).rejects.toMatchObject({ code: 422 });
  });

  it("accepts OK in any case, success, a 2xx code, and a body without an envelope", async () => {
    const bodies = [
      { status: "OK", code: 200, message: "OK", data: WIRE },
      { status: "ok", code: "201", data: WIRE },
      { status: " Success ", data: WIRE },
      { data: WIRE },
    ];
    const server = await serve((res, n) => sendJson(res, bodies[n]));
    const client = clientOf(server);
    for (const _ of bodies)
      await expect(client.webhooks.get(ID)).resolves.toMatchObject({ id: ID });
  });

  it("an envelope code that says retry (503) is retried for idempotent calls", async () => {
    const server = await serve((res, n) =>
      sendJson(
        res,
        n < 2
          ? { status: "Error", code: 503, message: "busy" }
          : { status: "OK", code: 200, data: [] },
      ),
    );
    await expect(clientOf(server, { retries: 2 }).webhooks.delete(ID)).resolves.toBeUndefined();
    expect(server.requests).toEqual(Array(3).fill(`DELETE /api/v2/developer/webhooks/${ID}`));
  });

  it("an envelope 401 says to check the token", async () => {
    const server = await serve((res) => sendJson(res, { status: "Error", code: 401 }));
    const error = (await failure(clientOf(server).webhooks.list())) as ApiError;
    expect(error.code).toBe(401);
    expect(error.message).toMatch(/Check the access token/);
  });
});

describe("the response size cap", () => {
  it("refuses a declared Content-Length over maxResponseBytes without reading it", async () => {
    const big = Buffer.alloc(10 * 1024 * 1024, 0x20);
    const server = await serve((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": big.length });
      res.end(big);
    });
    const error = (await failure(clientOf(server).webhooks.list())) as ResponseTooLargeError;
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({
      status: 200,
      limitBytes: 1_048_576,
      declaredBytes: 10 * 1024 * 1024,
    });
    expect(error.message).toBe(
      "GET developer/webhooks: the response (HTTP 200) is larger than maxResponseBytes, 1048576 bytes (it declared 10485760 bytes); it was not read. Raise maxResponseBytes in createClient if the API really sends responses this large.",
    );
    // Not retried: the same request would bring the same response.
    expect(server.requests).toHaveLength(1);
  });

  it("stops reading a chunked body (no Content-Length) once it passes the cap", async () => {
    let sent = 0;
    let stopped: () => void = () => {};
    const gone = new Promise<void>((resolve) => {
      stopped = resolve;
    });
    const server = await serve((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      // Writes until the client goes away: an endless body.
      const pump = () => {
        while (!res.destroyed && sent < 200 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        stopped();
      };
      res.on("close", stopped);
      pump();
    });
    const error = (await failure(
      clientOf(server, { maxResponseBytes: 100_000 }).webhooks.get(ID),
    )) as ResponseTooLargeError;
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ status: 200, limitBytes: 100_000, declaredBytes: undefined });
    await gone;
    // The client cancelled the body: the server could not push anywhere near 200 MiB.
    expect(sent).toBeLessThan(50 * 1024 * 1024);
  });

  it("an oversized error page is an ApiError without its body, retried like its status", async () => {
    const page = Buffer.alloc(2 * 1024 * 1024, 0x3c);
    const server = await serve((res) => {
      res.writeHead(502, { "content-type": "text/html", "content-length": page.length });
      res.end(page);
    });
    const error = (await failure(clientOf(server, { retries: 1 }).webhooks.list())) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 502, code: 502, body: undefined });
    expect(error.message).toBe(
      "GET developer/webhooks failed with 502 Bad Gateway (its body was not read: larger than maxResponseBytes, 1048576 bytes)",
    );
    expect(server.requests).toHaveLength(2);
  });

  it("reads a body of exactly maxResponseBytes", async () => {
    const body = JSON.stringify({ status: "OK", data: WIRE });
    const server = await serve((res) => sendJson(res, { status: "OK", data: WIRE }));
    const client = clientOf(server, { maxResponseBytes: Buffer.byteLength(body) });
    await expect(client.webhooks.get(ID)).resolves.toMatchObject({ id: ID });
  });

  it("validates maxResponseBytes at creation", () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() =>
        createClient({ baseUrl: "http://x/api/v2/", token: TOKEN, maxResponseBytes: bad }),
      ).toThrow(/`maxResponseBytes` must be a whole number of bytes from 1/);
    }
  });
});

describe("the token is redacted from everything an error keeps", () => {
  const echoes = [TOKEN, TOKEN.toUpperCase(), TOKEN.toLowerCase()];
  const mentions = new RegExp(TOKEN, "i");

  it("from the message, the body (nested, keys too) and the field errors, in any case", async () => {
    const server = await serve((res) =>
      sendJson(
        res,
        {
          status: "Error",
          code: 422,
          message: `Token ${echoes[1]} is not allowed here.`,
          errors: { token: [`The token ${echoes[2]} is invalid.`], [echoes[0] as string]: ["x"] },
          debug: { headers: [`Authorization: Bearer ${echoes[1]}`], n: 1 },
        },
        422,
      ),
    );
    const error = (await failure(clientOf(server).webhooks.list())) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).not.toMatch(mentions);
    expect(JSON.stringify(error.body)).not.toMatch(mentions);
    expect(JSON.stringify(error.errors)).not.toMatch(mentions);
    expect(error.errors).toEqual({
      token: ["The token [token] is invalid."],
      "[token]": ["x"],
    });
    expect(error.body).toMatchObject({
      message: "Token [token] is not allowed here.",
      debug: { headers: ["Authorization: Bearer [token]"], n: 1 },
    });
  });

  it("from a text body and from the body of an unexpected 2xx", async () => {
    const server = await serve((res, n) => {
      if (n === 0) {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(`crashed reading bearer ${echoes[2]}`);
      } else sendJson(res, { status: "OK", data: { note: echoes[1] } });
    });
    const client = clientOf(server, { retries: 0 });
    const api500 = (await failure(client.webhooks.get(ID))) as ApiError;
    expect(api500.body).toBe("crashed reading bearer [token]");
    expect(api500.message).not.toMatch(mentions);
    const invalid = (await failure(client.webhooks.get(ID))) as InvalidResponseError;
    expect(invalid).toBeInstanceOf(InvalidResponseError);
    expect(JSON.stringify(invalid.body)).not.toMatch(mentions);
    expect(invalid.body).toEqual({ status: "OK", data: { note: "[token]" } });
  });
});
