// Redirects of a request with a body (a create or an edit, holding the webhook's token): followed
// within the origin only. Real HTTP servers on localhost, the global fetch.
import { afterEach, describe, expect, it } from "vitest";
import {
  closeServers,
  recordingServer as server,
} from "../../../test/support/client-api-server.js";
import { createClient } from "./create-client.js";
import { RequestFailedError } from "./errors.js";

const API_TOKEN = "api-token-7f3c9e21";
const WEBHOOK_TOKEN = "hook-token-5b8d2a44";

afterEach(closeServers);

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
