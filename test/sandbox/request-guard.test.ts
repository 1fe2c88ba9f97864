// The sandbox against a browser that is not the user's, over real HTTP: a page on a name
// rebound to 127.0.0.1 (DNS rebinding), a page guessing the token, and a cross-site page that
// knows the dashboard key (it is printed to terminals and CI logs).
import http from "node:http";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const API_TOKEN = "guard-api-token-2718";

let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await createSandbox({ token: API_TOKEN, allowedHosts: ["sandbox.test"] });
});

afterEach(() => sandbox.close());

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw request: node:http sends the Host header as given, which fetch does not allow. */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: "127.0.0.1", port: sandbox.port, method, path, headers, agent: false },
      (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
        );
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

const bearer = { authorization: `Bearer ${API_TOKEN}` };
const dashboardKey = () => new URL(sandbox.dashboardUrl).hash.replace(/^#key=/, "");

describe("Host", () => {
  it("answers loopback names at its port and allowed names; any other Host gets 403", async () => {
    const path = "/api/v2/developer/webhooks";
    for (const host of [
      `127.0.0.1:${sandbox.port}`,
      `localhost:${sandbox.port}`,
      `LOCALHOST:${sandbox.port}`,
      `[::1]:${sandbox.port}`,
      "sandbox.test",
      "sandbox.test:8443",
    ]) {
      expect([host, (await send("GET", path, { ...bearer, host })).status]).toEqual([host, 200]);
    }
    for (const host of [
      `rebound.attacker.example:${sandbox.port}`,
      "localhost:1",
      `127.0.0.1.nip.io:${sandbox.port}`,
    ]) {
      const reply = await send("GET", path, { ...bearer, host });
      expect([host, reply.status]).toEqual([host, 403]);
      expect(JSON.parse(reply.body).message).toMatch(
        /^Forbidden: the sandbox does not answer for Host/,
      );
      // Nothing of the foreign name comes back in a link.
      expect(reply.body).not.toContain("links");
    }
    // The dashboard's page and its API too.
    const page = await send("GET", "/dashboard/", { host: "rebound.attacker.example" });
    expect(page.status).toBe(403);
    const api = await send("GET", "/dashboard/api/developer/webhooks", {
      host: `evil.example:${sandbox.port}`,
      "x-reportkit-dashboard-key": dashboardKey(),
    });
    expect(api.status).toBe(403);
  });

  it("refuses an allowedHosts entry that is not a host name", async () => {
    await expect(createSandbox({ token: API_TOKEN, allowedHosts: ["http://x/"] })).rejects.toThrow(
      /`allowedHosts` must be a list of host names/,
    );
  });
});

describe("failed credentials", () => {
  it("after 10 failures in a minute, every request needing a credential gets 429, the right one too", async () => {
    const path = "/api/v2/developer/webhooks";
    const host = `127.0.0.1:${sandbox.port}`;
    for (let i = 0; i < 10; i++) {
      const guess = await send("GET", path, { host, authorization: `Bearer guess-${i}` });
      expect(guess.status).toBe(401);
    }
    const limited = await send("GET", path, { host, ...bearer });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(60);
    expect(JSON.parse(limited.body).message).toMatch(/^Too many failed credentials/);
    // The dashboard key counts alike: the same address is held back there too.
    const dashboard = await send("GET", "/dashboard/api/developer/webhooks", {
      host,
      "x-reportkit-dashboard-key": dashboardKey(),
    });
    expect(dashboard.status).toBe(429);
  });
});

describe("dashboard requests that change something", () => {
  const host = () => `127.0.0.1:${sandbox.port}`;
  const origin = () => `http://${host()}`;
  const create = JSON.stringify({ name: "forged", uri: "http://127.0.0.1:9/" });

  it("take the key from the header only, not from ?key=", async () => {
    const viaQuery = await send(
      "POST",
      `/dashboard/api/developer/webhooks?key=${dashboardKey()}`,
      { host: host(), "content-type": "application/json" },
      create,
    );
    expect(viaQuery.status).toBe(401);
  });

  it("must be application/json: a text/plain body (what a cross-site form sends) gets 415", async () => {
    const plain = await send(
      "POST",
      "/dashboard/api/developer/webhooks",
      { host: host(), "x-reportkit-dashboard-key": dashboardKey(), "content-type": "text/plain" },
      create,
    );
    expect(plain.status).toBe(415);
    const bare = await send("DELETE", "/dashboard/api/developer/webhooks/some-id", {
      host: host(),
      "x-reportkit-dashboard-key": dashboardKey(),
    });
    expect(bare.status).toBe(415);
  });

  it("refuse a foreign Origin or a cross-site fetch, and take the dashboard's own", async () => {
    const headers = {
      host: host(),
      "x-reportkit-dashboard-key": dashboardKey(),
      "content-type": "application/json",
    };
    const path = "/dashboard/api/developer/webhooks";
    const foreign = await send("POST", path, { ...headers, origin: "http://evil.example" }, create);
    expect(foreign.status).toBe(403);
    const crossSite = await send(
      "POST",
      path,
      { ...headers, "sec-fetch-site": "cross-site" },
      create,
    );
    expect(crossSite.status).toBe(403);
    const own = await send(
      "POST",
      path,
      { ...headers, origin: origin(), "sec-fetch-site": "same-origin" },
      create,
    );
    expect(own.status).toBe(200);
    // Reading needs the key only (the event stream takes it as ?key=: EventSource sends no header).
    const list = await send("GET", path, {
      host: host(),
      "x-reportkit-dashboard-key": dashboardKey(),
    });
    expect(JSON.parse(list.body).data).toHaveLength(1);
  });
});
