// What the verification tests share: a sandbox that records each verification it sends, its API,
// and a raw HTTP listener that keeps each request as it came and answers as told.
import http from "node:http";
import { createSandbox, type Sandbox, type VerificationSent } from "@reportkit/sandbox";
import { listen, type Running, stop } from "./servers.js";

export const API_TOKEN = "verification-api-token";
export const SECRET = "hook-secret-2718281828";
export const TOKEN = "hook-token-3141592653";

export interface Captured {
  method: string;
  url: string;
  rawHeaders: string[];
  body: string;
}

/** One test's sandbox, listeners and servers, and the verifications the sandbox reported. */
export class Rig {
  sandbox: Sandbox | undefined;
  readonly running: Running[] = [];
  readonly verifications: VerificationSent[] = [];

  async start(options: { payloads?: "documented" | "complete"; webhookSecret?: string } = {}) {
    this.sandbox = await createSandbox({
      token: API_TOKEN,
      timeoutMs: 5_000,
      onVerification: (sent) => this.verifications.push(sent),
      ...options,
    });
    return this.sandbox;
  }

  async api(method: string, path: string, body?: unknown) {
    const response = await fetch(new URL(path, this.sandbox?.baseUrl), {
      method,
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  /**
   * A raw listener: keeps each request as it came (method, URL, header lines, body bytes) and
   * answers with `reply(request)`: status, content type and body.
   */
  async listener(
    reply: (request: Captured) => { status: number; type?: string; body: string },
  ): Promise<Running & { requests: Captured[] }> {
    const requests: Captured[] = [];
    const server = http.createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      const captured = {
        method: req.method ?? "",
        url: req.url ?? "",
        rawHeaders: req.rawHeaders,
        body,
      };
      requests.push(captured);
      const answer = reply(captured);
      res
        .writeHead(answer.status, { "content-type": answer.type ?? "text/plain" })
        .end(answer.body);
    });
    const url = await listen(server);
    const handle = { url, requests, close: () => stop(server) };
    this.running.push(handle);
    return handle;
  }

  async close(): Promise<void> {
    await this.sandbox?.close();
    for (const r of this.running.splice(0)) await r.close();
    this.sandbox = undefined;
    this.verifications.length = 0;
  }
}

/** The challenge a verification body carries, its trailing comma allowed. */
export function challengeIn(body: string): string {
  return (JSON.parse(body.replace(/,\s*}$/, "}")) as { challenge: string }).challenge;
}

/** The answer the provider's page asks for: 200 with the challenge in JSON. */
export const echoChallenge = (request: Captured) => ({
  status: 200,
  type: "application/json",
  body: JSON.stringify({ challenge: challengeIn(request.body) }),
});

/** Node's rawHeaders, as [name, value] pairs. */
export function pairs(raw: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i] as string, raw[i + 1] as string]);
  return out;
}
