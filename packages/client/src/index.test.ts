// What a user may import from @reportkit/client besides createClient: the webhook schemas (to
// validate a webhook read elsewhere, e.g. from a queue) and ClientError, the one class to catch
// for every failure of a call.
import { describe, expect, it } from "vitest";
import {
  ApiError,
  ClientError,
  createClient,
  InvalidResponseError,
  RequestFailedError,
  ResponseTooLargeError,
  WebhookSchema,
  WebhookWireSchema,
} from "./index.js";

// A webhook as the management API's show endpoint serves it (provider-interface.md 2.1).
const SERVED = {
  id: "9a7b4c2e-3f1d-4e5a-8b6c-0d9e8f7a6b5c",
  name: "orders",
  uri: "https://my.app/reports",
  secret: "********",
  verification_code: "********",
  status: 1,
  created_at: "2022-10-19T07:40:13.000000Z",
  updated_at: "2022-10-19T07:41:00.000000Z",
  team_id: 7,
};

/** The issues of a failed parse as "path: message". */
function issuesOf(result: {
  success: boolean;
  error?: { issues: { path: PropertyKey[]; message: string }[] };
}) {
  expect(result.success).toBe(false);
  return (result.error?.issues ?? []).map((i) => `${i.path.join(".")}: ${i.message}`);
}

describe("WebhookWireSchema", () => {
  it('reads a served webhook, status as 1 or "1", unknown fields kept', () => {
    expect(WebhookWireSchema.parse(SERVED)).toEqual({
      ...SERVED,
      created_at: new Date("2022-10-19T07:40:13.000Z"),
      updated_at: new Date("2022-10-19T07:41:00.000Z"),
    });
    expect(WebhookWireSchema.parse({ ...SERVED, status: "0", id: 17 })).toMatchObject({
      status: 0,
      id: "17",
    });
  });

  it("names each field whose type is wrong", () => {
    expect(
      issuesOf(WebhookWireSchema.safeParse({ ...SERVED, status: 2, created_at: "yesterday" })),
    ).toEqual([
      'status: expected 0 or 1 (as a number or as the string "0"/"1")',
      "created_at: expected an ISO 8601 timestamp such as 2022-10-19T07:40:13.000000Z",
    ]);
    const { uri: _uri, ...noUri } = SERVED;
    expect(issuesOf(WebhookWireSchema.safeParse(noUri))).toEqual([
      "uri: Invalid input: expected string, received undefined",
    ]);
  });
});

describe("WebhookSchema", () => {
  it("gives the client's Webhook: camelCase, active, dates, and raw as served", () => {
    expect(WebhookSchema.parse({ ...SERVED, status: "1", secret: null })).toEqual({
      id: SERVED.id,
      name: "orders",
      uri: "https://my.app/reports",
      status: 1,
      active: true,
      secret: null,
      verificationCode: "********",
      createdAt: new Date("2022-10-19T07:40:13.000Z"),
      updatedAt: new Date("2022-10-19T07:41:00.000Z"),
      raw: { ...SERVED, status: "1", secret: null },
    });
    expect(WebhookSchema.parse({ ...SERVED, status: 0 })).toMatchObject({
      status: 0,
      active: false,
    });
  });

  it("refuses what WebhookWireSchema refuses, with the same paths", () => {
    expect(issuesOf(WebhookSchema.safeParse({ ...SERVED, status: "yes" }))).toEqual([
      'status: expected 0 or 1 (as a number or as the string "0"/"1")',
    ]);
  });
});

describe("ClientError: every failure of a call is one", () => {
  const token = "api-token-never-shown";
  const client = (reply: () => Response | Promise<Response>, extra: object = {}) =>
    createClient({
      baseUrl: "https://api.example.com/api/v2/",
      token,
      retries: 0,
      fetch: (async () => reply()) as typeof fetch,
      ...extra,
    });

  async function failure(call: Promise<unknown>): Promise<ClientError> {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toBeInstanceOf(Error);
    const clientError = error as ClientError;
    expect(clientError.request).toBe("GET developer/webhooks");
    expect(clientError.message).not.toContain(token);
    return clientError;
  }

  it("ApiError, InvalidResponseError, RequestFailedError and ResponseTooLargeError", async () => {
    const api = await failure(
      client(() => Response.json({ message: "Unauthenticated." }, { status: 401 })).webhooks.list(),
    );
    expect(api).toBeInstanceOf(ApiError);
    expect([api.name, (api as ApiError).status]).toEqual(["ApiError", 401]);

    const invalid = await failure(
      client(() => Response.json({ data: [{ ...SERVED, status: 5 }] })).webhooks.list(),
    );
    expect(invalid).toBeInstanceOf(InvalidResponseError);
    expect((invalid as InvalidResponseError).issues).toEqual([
      'data[0].status: expected 0 or 1 (as a number or as the string "0"/"1")',
    ]);

    const failed = await failure(
      client(() => {
        throw new TypeError("fetch failed", {
          cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
        });
      }).webhooks.list(),
    );
    expect(failed).toBeInstanceOf(RequestFailedError);
    expect((failed as RequestFailedError).attempts).toBe(1);

    const large = await failure(
      client(() => new Response("x".repeat(2048), { headers: { "content-length": "2048" } }), {
        maxResponseBytes: 1024,
      }).webhooks.list(),
    );
    expect(large).toBeInstanceOf(ResponseTooLargeError);
    expect((large as ResponseTooLargeError).limitBytes).toBe(1024);
  });
});
