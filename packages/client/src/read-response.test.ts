// The cap on the size of a response a real server sends (maxResponseBytes): refused by its
// Content-Length, or cut off while reading a chunked body. Real HTTP servers on localhost.
import { afterEach, describe, expect, it } from "vitest";
import {
  clientOf,
  closeServers,
  failure,
  ID,
  sendJson,
  serve,
  TOKEN,
  WIRE,
} from "../../../test/support/client-api-server.js";
import { createClient } from "./create-client.js";
import { ApiError, ResponseTooLargeError } from "./errors.js";

afterEach(closeServers);

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
