// The API token and the webhook's credentials are redacted from everything an error keeps, as
// sent and in the forms a server echoes them in (any case, URL-encoded, base64). Real HTTP
// servers on localhost, the global fetch.
import { afterEach, describe, expect, it } from "vitest";
import {
  clientOf,
  closeServers,
  failure,
  ID,
  sendJson,
  serve,
  recordingServer as server,
  TOKEN,
} from "../../../test/support/client-api-server.js";
import { createClient } from "./create-client.js";
import { ApiError, InvalidResponseError } from "./errors.js";
import { redactor } from "./redact.js";

const API_TOKEN = "api-token-7f3c9e21";
const WEBHOOK_TOKEN = "hook-token-5b8d2a44";

afterEach(closeServers);

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

describe("the voice logs redact it alike", () => {
  it("from an error of the Recordings API and from an unexpected Call Logs page", async () => {
    const server = await serve((res, n) =>
      n === 0
        ? sendJson(res, { status: "Error", code: 403, message: `No recordings for ${TOKEN}` }, 403)
        : sendJson(res, { status: "OK", data: [{ id: "c", note: TOKEN.toLowerCase() }] }),
    );
    const client = clientOf(server, { retries: 0 });
    const denied = (await failure(client.recordings.list())) as ApiError;
    expect(denied.message).toBe(
      "GET voice/recordings failed with 403 Forbidden: No recordings for [token]",
    );
    expect(JSON.stringify(denied.body)).not.toMatch(new RegExp(TOKEN, "i"));
    const invalid = (await failure(client.callLogs.list())) as InvalidResponseError;
    expect(invalid.issues).toEqual(["data[0].status: expected a string"]);
    expect(JSON.stringify(invalid.body)).not.toMatch(new RegExp(TOKEN, "i"));
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

describe("the one redaction rule (redactor)", () => {
  it("hides any Bearer credential, whoever's, and keeps the word Bearer in prose", () => {
    const hide = redactor(API_TOKEN);
    expect(
      hide("got Bearer Zq7-sssss… from a proxy; BEARER eyJhbGciOi.J9x; bearer%20AbCdEfGhIj"),
    ).toBe("got Bearer [token]… from a proxy; BEARER [token]; bearer%20[token]");
    const prose = [
      'WWW-Authenticate: Bearer realm="reportkit", error="invalid_token"',
      "The Authorization header is not a Bearer credential: send the webhook's secret.",
      "Bearer token is wrong",
    ];
    for (const text of prose) expect(hide(text)).toBe(text);
  });

  it("skips secrets under 4 characters, which would hide ordinary text", () => {
    expect(redactor(["t", "ab3"])("the receiver said ab3")).toBe("the receiver said ab3");
    expect(redactor(["t", "abc4"])("the receiver said abc4")).toBe("the receiver said [token]");
  });
});
