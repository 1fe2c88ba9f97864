// How the client reads the response envelope a real server sends (provider-interface.md 2.2):
// a 2xx whose envelope says it failed is an ApiError with the envelope's code. Real HTTP servers
// on localhost, the global fetch.
import { afterEach, describe, expect, it } from "vitest";
import {
  clientOf,
  closeServers,
  failure,
  ID,
  sendJson,
  serve,
  WIRE,
} from "../../../test/support/client-api-server.js";
import { ApiError, InvalidResponseError } from "./errors.js";

afterEach(closeServers);

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
