// An oversized request body is refused with a 413 that leaves a keep-alive client able to send
// its next request: through the real sandbox, with a keep-alive agent of one socket.
import http from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./create-sandbox.js";

const TOKEN = "sandbox-api-token";
let sandbox: Sandbox;
let agent: http.Agent;

beforeEach(async () => {
  sandbox = await createSandbox({ token: TOKEN });
  agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
});

afterEach(async () => {
  agent.destroy();
  await sandbox.close();
});

interface Answer {
  status: number;
  body: string;
  connection: string | undefined;
  reusedSocket: boolean;
}

/** One request on the shared agent; `chunked` sends the body without a Content-Length. */
function send(
  method: string,
  path: string,
  body?: Buffer,
  { chunked = false } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
    };
    if (body !== undefined && !chunked) headers["content-length"] = body.length;
    const request = http.request(
      new URL(path, sandbox.baseUrl),
      { method, agent, headers, timeout: 5_000 },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            body: text,
            connection: response.headers.connection,
            reusedSocket: request.reusedSocket,
          }),
        );
      },
    );
    request.on("timeout", () => request.destroy(new Error("no answer within 5 s")));
    request.on("error", reject);
    if (body === undefined) request.end();
    else if (!chunked) request.end(body);
    else {
      // Several writes, so the body arrives in chunks of a chunked transfer.
      const step = 256 * 1024;
      for (let at = 0; at < body.length; at += step) request.write(body.subarray(at, at + step));
      request.end();
    }
  });
}

const MiB = 1024 * 1024;

describe("an oversized request body", () => {
  it.each([
    ["with a Content-Length", false],
    ["chunked", true],
  ])("%s: 413, then the next request on the same connection succeeds", async (_, chunked) => {
    const refused = await send("POST", "sandbox/sms", Buffer.alloc(2 * MiB, 0x20), { chunked });
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body)).toEqual({
      status: "Error",
      code: 413,
      message: "The request body is larger than 1048576 bytes (1 MiB).",
    });
    expect(refused.connection).toBe("keep-alive");

    const next = await send("GET", "developer/webhooks");
    expect(next.status).toBe(200);
    // The body was drained, so the same socket served the next request.
    expect(next.reusedSocket).toBe(true);
  });

  it.each([
    ["declared by Content-Length", false],
    ["counted while reading", true],
  ])(
    "far too large (%s): 413 closing the connection, the next request gets a new one",
    async (_, chunked) => {
      const refused = await send("POST", "sandbox/sms", Buffer.alloc(12 * MiB, 0x20), { chunked });
      expect(refused.status).toBe(413);
      expect(refused.connection).toBe("close");

      const next = await send("GET", "developer/webhooks");
      expect(next.status).toBe(200);
      expect(next.reusedSocket).toBe(false);
    },
  );

  it("a body of exactly 1 MiB is read", async () => {
    const json = Buffer.from(JSON.stringify({ name: "x", uri: "https://my.app/r", pad: "" }));
    const body = Buffer.from(
      JSON.stringify({ name: "x", uri: "https://my.app/r", pad: " ".repeat(MiB - json.length) }),
    );
    expect(body.length).toBe(MiB);
    const created = await send("POST", "developer/webhooks", body);
    expect(created.status).toBe(200);
  });
});
