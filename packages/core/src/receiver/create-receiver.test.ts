import { describe, expect, it, vi } from "vitest";
import {
  SAMPLE_CALL,
  SAMPLE_CALL_TEXT,
  SAMPLE_DLR,
  SAMPLE_DLR_TEXT,
  TOKEN,
} from "../../../../test/fixtures/samples.js";
import type { ReportkitError } from "../reply/errors.js";
import type { CallReport, DeliveryReport } from "../report/schemas.js";
import type { ReportContext } from "../request/context.js";
import { createReceiver } from "./create-receiver.js";
import type { ReceiverOptions } from "./receiver-options.js";
import type { ReceiverRequest } from "./types.js";

const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_TYPE = { "content-type": "application/json" };

function setup(extra: Partial<ReceiverOptions> = {}) {
  const deliveries: DeliveryReport[] = [];
  const calls: CallReport[] = [];
  const errors: ReportkitError[] = [];
  const receiver = createReceiver({
    token: TOKEN,
    onDelivery: (report) => {
      deliveries.push(report);
    },
    onCall: (report) => {
      calls.push(report);
    },
    onError: (error) => {
      errors.push(error);
    },
    // These tests send the same sample again and again; deduplication has tests of its own.
    dedupe: false,
    ...extra,
  } as ReceiverOptions);
  return { receiver, deliveries, calls, errors };
}

function post(
  body: ReceiverRequest["body"],
  headers: Record<string, string> = {},
): ReceiverRequest {
  return { method: "POST", url: "/webhooks", headers: { ...AUTH, ...JSON_TYPE, ...headers }, body };
}

function errorOf(body: string) {
  return (JSON.parse(body) as { error: { code: string; message: string } }).error;
}

describe("createReceiver: the reply table", () => {
  it("200 {ok:true} once the handler ran, for both documented samples (trailing commas and all)", async () => {
    const { receiver, deliveries, calls } = setup();
    const dlr = await receiver.handle(post(SAMPLE_DLR_TEXT));
    const call = await receiver.handle(post(SAMPLE_CALL_TEXT));
    expect([dlr.status, call.status]).toEqual([200, 200]);
    expect(JSON.parse(dlr.body)).toEqual({ ok: true });
    expect(dlr.headers["content-type"]).toBe("application/json");
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ id: SAMPLE_DLR.id, raw: SAMPLE_DLR });
    expect(calls[0]).toMatchObject({ type: "call", to: "919876543210", duration: 23 });
  });

  it("200 for a kind without a handler (acknowledged, not retried forever)", async () => {
    const delivered = vi.fn();
    const receiver = createReceiver({ token: TOKEN, onDelivery: delivered });
    const res = await receiver.handle(post(JSON.stringify(SAMPLE_CALL)));
    expect(res.status).toBe(200);
    expect(delivered).not.toHaveBeenCalled();
  });

  it.each([
    ["no Authorization header", {}, 'Bearer realm="reportkit"'],
    ["a Basic scheme", { authorization: "Basic dXNlcjpwYXNz" }, 'Bearer realm="reportkit"'],
    ["Bearer with no token", { authorization: "Bearer " }, 'Bearer realm="reportkit"'],
    [
      "a wrong token",
      { authorization: "Bearer wrong" },
      'Bearer realm="reportkit", error="invalid_token"',
    ],
    [
      "a token prefix",
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      'Bearer realm="reportkit", error="invalid_token"',
    ],
  ])("401 unauthorized for %s, before the body is read", async (_, headers, challenge) => {
    const { receiver, deliveries, errors } = setup();
    // An endless body: it is never parsed, only drained up to 64 KiB, then the reply closes
    // the connection.
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 16_384;
        controller.enqueue(new Uint8Array(16_384));
      },
    });
    const res = await receiver.handle({
      method: "POST",
      url: "/",
      headers: { ...JSON_TYPE, ...headers },
      body,
    });
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toBe(challenge);
    expect(res.headers.connection).toBe("close");
    expect(errorOf(res.body).code).toBe("unauthorized");
    expect(pulled).toBeLessThanOrEqual(65_536 + 3 * 16_384);
    expect(deliveries).toHaveLength(0);
    expect(errors.map((e) => e.code)).toEqual(["unauthorized"]);
  });

  it.each([
    ["not JSON at all", "id=1&&&", "invalid_json"],
    ["truncated JSON", '{"id": "x:1", "mobile": ', "invalid_json"],
    ["an empty body", "", "invalid_json"],
    ["an empty object", "{}", "unrecognized_report"],
    ["an array", "[]", "unrecognized_report"],
    ["a scalar", "42", "unrecognized_report"],
    ["a DLR whose id is an object", JSON.stringify({ ...SAMPLE_DLR, id: {} }), "invalid_report"],
    [
      "a call without mid or webhook_id",
      JSON.stringify({ status: "ANSWER", to: 1 }),
      "invalid_report",
    ],
  ])("400 for %s", async (_, body, code) => {
    const { receiver, errors } = setup();
    const res = await receiver.handle(post(body));
    expect(res.status).toBe(400);
    expect(errorOf(res.body).code).toBe(code);
    expect(errors[0]?.code).toBe(code);
  });

  it("names the identity field in the 400 message", async () => {
    const { receiver } = setup();
    const res = await receiver.handle(post(JSON.stringify({ ...SAMPLE_DLR, status: "" })));
    expect(errorOf(res.body).message).toMatch(/"status".*empty/);
  });

  it("200 for an unreadable optional value: the handler gets null and a warning", async () => {
    const { receiver, deliveries, errors } = setup();
    const body = { ...SAMPLE_DLR, units: "abc", deliv_time: "N/A" };
    const res = await receiver.handle(post(JSON.stringify(body)));
    expect(res.status).toBe(200);
    expect(errors).toEqual([]);
    expect(deliveries[0]).toMatchObject({ units: null, deliveredAt: null, raw: body });
    expect(deliveries[0]?.warnings).toEqual([
      { field: "units", message: expect.stringMatching(/whole number, got "abc"/) },
      { field: "deliv_time", message: expect.stringMatching(/got "N\/A"/) },
    ]);
  });

  it.each(["GET", "PUT", "DELETE", "PATCH"])("405 with Allow for %s", async (method) => {
    const { receiver } = setup();
    const res = await receiver.handle({ ...post(SAMPLE_DLR_TEXT), method });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("POST");
    expect(errorOf(res.body).code).toBe("method_not_allowed");
  });

  it("413 for a body over maxBodyBytes, as text, bytes, a declared length or a stream", async () => {
    const { receiver } = setup({ maxBodyBytes: 100 });
    const big = JSON.stringify({ ...SAMPLE_DLR, custom: "x".repeat(200) });
    const bytes = new TextEncoder().encode(big);
    const stream = new Blob([bytes]).stream();
    const declared = post(undefined, { "content-length": "5000" });
    for (const request of [post(big), post(bytes), post(stream), declared]) {
      const res = await receiver.handle(request);
      expect(res.status).toBe(413);
      expect(errorOf(res.body).code).toBe("payload_too_large");
    }
  });

  it("reads a web Request passed as the body whole when its length is declared, else streams it", async () => {
    const { receiver, deliveries } = setup();
    const latin1 = new Uint8Array([...new TextEncoder().encode(SAMPLE_DLR_TEXT)]);
    const custom = JSON.stringify({ ...SAMPLE_DLR, custom: "caf\u00e9" });
    // ISO-8859-1 bytes: é is one byte, 0xE9, which only a bytes read decodes right.
    const bytes = Uint8Array.from(custom, (c) => c.charCodeAt(0));
    const requests = [
      [latin1, "application/json", true],
      [bytes, "application/json; charset=ISO-8859-1", true],
      [latin1, "application/json", false],
    ] as const;
    for (const [body, type, declared] of requests) {
      const web = new Request("http://x/webhooks", { method: "POST", body });
      const headers = { ...AUTH, "content-type": type };
      const res = await receiver.handle({
        method: "POST",
        url: "/webhooks",
        headers: declared ? { ...headers, "content-length": String(body.byteLength) } : headers,
        body: web,
      });
      expect(res.status).toBe(200);
    }
    expect(deliveries.map((d) => d.custom)).toEqual(["order-1234", "café", "order-1234"]);
  });

  it("400 body_read_failed when a web Request's body cannot be read", async () => {
    const { receiver, errors } = setup();
    const failing = {
      body: null,
      bodyUsed: false,
      text: () => Promise.reject(new Error("reset")),
      arrayBuffer: () => Promise.reject(new Error("reset")),
    };
    const res = await receiver.handle({
      method: "POST",
      url: "/webhooks",
      headers: { ...AUTH, "content-length": "10" },
      body: failing,
    });
    expect(res.status).toBe(400);
    expect(errors.map((e) => e.code)).toEqual(["body_read_failed"]);
  });

  it("counts UTF-8 bytes, not characters, against the limit", async () => {
    const { receiver } = setup({ maxBodyBytes: 500 });
    const body = JSON.stringify({ ...SAMPLE_DLR, custom: "é".repeat(100) });
    expect(body.length).toBeLessThan(500);
    expect((await receiver.handle(post(body))).status).toBe(200);
    const over = JSON.stringify({ ...SAMPLE_DLR, custom: "é".repeat(150) });
    expect(over.length).toBeLessThan(500);
    expect((await receiver.handle(post(over))).status).toBe(413);
  });

  it.each(["application/xml", "image/png", "application/octet-stream"])(
    "415 for %s",
    async (type) => {
      const { receiver } = setup();
      const res = await receiver.handle(post(SAMPLE_DLR_TEXT, { "content-type": type }));
      expect(res.status).toBe(415);
      expect(errorOf(res.body).code).toBe("unsupported_media_type");
    },
  );

  it.each([
    [
      "throws",
      () => {
        throw new Error("db is down at 10.0.0.7 password=hunter2");
      },
    ],
    [
      "rejects",
      async () => {
        throw new Error("db is down at 10.0.0.7 password=hunter2");
      },
    ],
  ])(
    "500 handler_failed when the handler %s, without the user's message",
    async (_, onDelivery) => {
      const { receiver, errors } = setup({ onDelivery });
      const res = await receiver.handle(post(SAMPLE_DLR_TEXT));
      expect(res.status).toBe(500);
      expect(errorOf(res.body).code).toBe("handler_failed");
      expect(res.body).not.toContain("hunter2");
      expect(res.body).not.toContain("10.0.0.7");
      expect(errors[0]?.code).toBe("handler_failed");
      expect(String((errors[0] as ReportkitError).cause)).toContain("db is down");
    },
  );
});

describe("createReceiver: lenient on format", () => {
  it.each([
    ["application/json; charset=UTF-8"],
    ["Application/JSON"],
    ["application/vnd.provider+json"],
    ["text/plain"],
    [undefined],
  ])("reads %s as JSON", async (type) => {
    const { receiver, deliveries } = setup();
    const headers: Record<string, string> = { ...AUTH };
    if (type !== undefined) headers["content-type"] = type;
    const res = await receiver.handle({ method: "POST", url: "/", headers, body: SAMPLE_DLR_TEXT });
    expect(res.status).toBe(200);
    expect(deliveries).toHaveLength(1);
  });

  it("finds headers in any case, in records and in Headers", async () => {
    const { receiver, deliveries } = setup();
    const body = JSON.stringify(SAMPLE_DLR);
    const mixed = { AUTHORIZATION: `bearer ${TOKEN}`, "Content-TYPE": "application/json" };
    expect((await receiver.handle({ method: "post", url: "/", headers: mixed, body })).status).toBe(
      200,
    );
    const web = new Headers({ Authorization: `BEARER ${TOKEN}` });
    expect((await receiver.handle({ method: "POST", url: "/", headers: web, body })).status).toBe(
      200,
    );
    expect(deliveries).toHaveLength(2);
  });

  it("accepts the documented curl's stray comma after the token", async () => {
    const { receiver } = setup();
    const res = await receiver.handle(post(SAMPLE_DLR_TEXT, { authorization: `Bearer ${TOKEN},` }));
    expect(res.status).toBe(200);
  });

  it("accepts every body shape an adapter may have", async () => {
    const { receiver, deliveries } = setup();
    const text = JSON.stringify(SAMPLE_DLR);
    const bytes = new TextEncoder().encode(text);
    async function* chunks() {
      yield bytes.slice(0, 10);
      yield bytes.slice(10);
    }
    const bodies: ReceiverRequest["body"][] = [
      text,
      bytes,
      bytes.buffer.slice(0),
      new Blob([bytes]).stream(),
      chunks(),
      { ...SAMPLE_DLR },
    ];
    for (const body of bodies) expect((await receiver.handle(post(body))).status).toBe(200);
    expect(deliveries.map((d) => d.id)).toEqual(Array(6).fill(SAMPLE_DLR.id));
  });

  it("400 body_read_failed when the stream errors mid-way", async () => {
    const { receiver, deliveries } = setup();
    async function* broken() {
      yield new TextEncoder().encode('{"id":');
      throw new Error("ECONNRESET");
    }
    const res = await receiver.handle(post(broken()));
    expect(res.status).toBe(400);
    expect(errorOf(res.body).code).toBe("body_read_failed");
    expect(deliveries).toHaveLength(0);
  });

  it("reads the standard payload sent as urlencoded or multipart form fields", async () => {
    const { receiver, deliveries } = setup();
    const form = new URLSearchParams(SAMPLE_DLR as Record<string, string>);
    const urlencoded = post(form.toString(), {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect((await receiver.handle(urlencoded)).status).toBe(200);
    const multipart = new FormData();
    for (const [k, v] of Object.entries(SAMPLE_DLR)) multipart.set(k, String(v));
    const request = new Request("http://x/webhooks", {
      method: "POST",
      body: multipart,
      headers: AUTH,
    });
    expect((await receiver.fetch(request)).status).toBe(200);
    expect(deliveries[0]).toMatchObject({ units: 1, mobile: "919876543210" });
    expect(deliveries[1]).toMatchObject({
      units: 1,
      deliveredAt: new Date("2021-04-09T10:57:51Z"),
      warnings: [],
    });
  });

  it("reads wall-clock times in Asia/Kolkata by default, in `timeZone` when given", async () => {
    const byDefault = setup();
    const utc = setup({ timeZone: "UTC" });
    await byDefault.receiver.handle(post(SAMPLE_CALL_TEXT));
    await utc.receiver.handle(post(SAMPLE_CALL_TEXT));
    expect(byDefault.calls[0]?.startedAt).toEqual(new Date("2021-04-09T10:57:51Z"));
    expect(utc.calls[0]?.startedAt).toEqual(new Date("2021-04-09T16:27:51Z"));
  });

  it("reads a JSON body sent with PHP curl's default urlencoded content type", async () => {
    const { receiver, deliveries } = setup();
    const res = await receiver.handle(
      post(JSON.stringify(SAMPLE_DLR), { "content-type": "application/x-www-form-urlencoded" }),
    );
    expect(res.status).toBe(200);
    expect(deliveries[0]?.id).toBe(SAMPLE_DLR.id);
  });

  it("is not polluted by __proto__ keys in JSON or form bodies", async () => {
    const { receiver, deliveries } = setup();
    const json = `{"__proto__":{"polluted":1},${JSON.stringify(SAMPLE_DLR).slice(1)}`;
    expect((await receiver.handle(post(json))).status).toBe(200);
    const form = `__proto__[polluted]=1&constructor[prototype][polluted]=1&${new URLSearchParams(SAMPLE_DLR as Record<string, string>)}`;
    const res = await receiver.handle(
      post(form, { "content-type": "application/x-www-form-urlencoded" }),
    );
    expect(res.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(deliveries).toHaveLength(2);
  });
});

describe("createReceiver: tokens", () => {
  it("accepts every token of a rotation, and only those", async () => {
    const { receiver } = setup({ token: ["new-token", TOKEN] });
    for (const [token, status] of [
      ["new-token", 200],
      [TOKEN, 200],
      ["other", 401],
    ] as const) {
      const res = await receiver.handle(
        post(SAMPLE_DLR_TEXT, { authorization: `Bearer ${token}` }),
      );
      expect(res.status).toBe(status);
    }
  });

  it("asks a verifier function, sync or async", async () => {
    const seen: string[] = [];
    const verify = async (token: string) => {
      seen.push(token);
      return token === "from-vault";
    };
    const { receiver } = setup({ token: verify });
    expect(
      (await receiver.handle(post(SAMPLE_DLR_TEXT, { authorization: "Bearer from-vault" }))).status,
    ).toBe(200);
    expect(
      (await receiver.handle(post(SAMPLE_DLR_TEXT, { authorization: "Bearer nope" }))).status,
    ).toBe(401);
    expect(seen).toEqual(["from-vault", "nope"]);
    // A synchronous verifier works the same.
    const sync = setup({ token: (token: string) => token === "from-vault" }).receiver;
    const good = await sync.handle(post(SAMPLE_DLR_TEXT, { authorization: "Bearer from-vault" }));
    const bad = await sync.handle(post(SAMPLE_DLR_TEXT, { authorization: "Bearer nope" }));
    expect([good.status, bad.status]).toEqual([200, 401]);
  });

  it("500 token_check_failed when the verifier throws, so the provider retries", async () => {
    const { receiver } = setup({
      token: () => {
        throw new Error("vault unreachable");
      },
    });
    const res = await receiver.handle(post(SAMPLE_DLR_TEXT));
    expect(res.status).toBe(500);
    expect(errorOf(res.body).code).toBe("token_check_failed");
  });

  it("reads the token from a custom header, whole value", async () => {
    const { receiver } = setup({ header: "X-Api-Key" });
    expect((await receiver.handle(post(SAMPLE_DLR_TEXT, { "x-api-key": TOKEN }))).status).toBe(200);
    expect(
      (await receiver.handle(post(SAMPLE_DLR_TEXT, { "x-api-key": `Bearer ${TOKEN}` }))).status,
    ).toBe(401);
  });

  it("accepts anything with auth: false", async () => {
    const deliveries: DeliveryReport[] = [];
    const receiver = createReceiver({ auth: false, onDelivery: (r) => void deliveries.push(r) });
    const res = await receiver.handle({
      method: "POST",
      url: "/",
      headers: {},
      body: SAMPLE_DLR_TEXT,
    });
    expect(res.status).toBe(200);
    expect(deliveries).toHaveLength(1);
  });

  it("never puts a token or Authorization value in a reply, an error or the context", async () => {
    const contexts: ReportContext[] = [];
    const { receiver, errors } = setup({
      onDelivery: (_, ctx) => {
        contexts.push(ctx);
        throw new Error("boom");
      },
    });
    const wrong = "wrong-secret-value";
    const replies = [
      await receiver.handle(post(SAMPLE_DLR_TEXT, { authorization: `Bearer ${wrong}` })),
      await receiver.handle(post(SAMPLE_DLR_TEXT)),
    ];
    const everything = JSON.stringify([replies, errors.map((e) => [e.message, e.code]), contexts]);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(wrong);
    expect(contexts[0]?.headers.get("authorization")).toBeNull();
    expect(contexts[0]?.headers.get("content-type")).toBe("application/json");
  });
});

describe("createReceiver: handlers and onError", () => {
  it("waits for an async handler before answering", async () => {
    let finished = false;
    const { receiver } = setup({
      onDelivery: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        finished = true;
      },
    });
    await receiver.handle(post(SAMPLE_DLR_TEXT));
    expect(finished).toBe(true);
  });

  it("gives the handler receivedAt, method, url and headers", async () => {
    let ctx: ReportContext | undefined;
    const { receiver } = setup({
      onDelivery: (_, c) => {
        ctx = c;
      },
    });
    const before = Date.now();
    await receiver.handle({
      ...post(SAMPLE_DLR_TEXT, { "x-request-id": "r-1" }),
      url: "/webhooks?x=1",
    });
    expect(ctx?.receivedAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(ctx).toMatchObject({ method: "POST", url: "/webhooks?x=1" });
    expect(ctx?.headers.get("x-request-id")).toBe("r-1");
  });

  it("contains an onError that throws or rejects; the reply is unchanged", async () => {
    for (const onError of [
      () => {
        throw new Error("logger down");
      },
      () => Promise.reject(new Error("logger down")),
    ]) {
      const { receiver } = setup({ onError });
      expect((await receiver.handle(post("{}"))).status).toBe(400);
    }
  });

  it("refuse() answers like handle for framework-side refusals and tells onError", async () => {
    const { receiver, errors } = setup({ maxBodyBytes: 10 });
    const res = await receiver.refuse("payload_too_large", {
      method: "POST",
      url: "/",
      headers: AUTH,
    });
    expect(res.status).toBe(413);
    expect(errorOf(res.body)).toMatchObject({ code: "payload_too_large" });
    expect(errorOf(res.body).message).toContain("10 bytes");
    expect(errors.map((e) => e.code)).toEqual(["payload_too_large"]);
  });

  it("refuse() still checks the method, the token and the content type first, as handle does", async () => {
    const { receiver } = setup({ maxBodyBytes: 10 });
    const refuse = (method: string, headers: Record<string, string>) =>
      receiver.refuse("payload_too_large", { method, url: "/", headers });
    expect((await refuse("POST", {})).status).toBe(401);
    expect((await refuse("PUT", AUTH)).status).toBe(405);
    expect((await refuse("POST", { ...AUTH, "content-type": "application/xml" })).status).toBe(415);
    expect(
      (await receiver.refuse("body_read_failed", { method: "POST", url: "/", headers: AUTH }))
        .status,
    ).toBe(400);
  });

  it("answers a malformed request with a reply, never a throw", async () => {
    const { receiver, errors } = setup();
    const odd = [
      null,
      { url: "/", headers: AUTH, body: "{}" },
      { method: 5, url: "/", headers: AUTH, body: "{}" },
      { method: "POST", url: "/", body: "{}" },
    ] as unknown as Parameters<typeof receiver.handle>[0][];
    for (const request of odd) {
      const res = await receiver.handle(request);
      expect(res.status).toBeGreaterThanOrEqual(400);
    }
    expect(errors).toHaveLength(odd.length);
    // A body a framework parsed into a scalar is no report: 400, not a crash.
    for (const body of [5, true]) {
      const res = await receiver.handle({
        method: "POST",
        url: "/",
        headers: AUTH,
        body: body as unknown as string,
      });
      expect(res.status).toBe(400);
      expect(errorOf(res.body).code).toBe("unrecognized_report");
    }
  });

  it("hands handlers readable headers even from HTTP/2 (pseudo-headers) and odd values", async () => {
    const seen: (string | null)[] = [];
    const { receiver } = setup({
      onDelivery: (_report, ctx) => {
        seen.push(ctx.headers.get("x-request-id"));
      },
    });
    const res = await receiver.handle({
      method: "POST",
      url: "/",
      headers: {
        ":method": "POST",
        ":path": "/",
        ":authority": "localhost",
        "x-request-id": "r-1",
        "bad name": "x",
        ...AUTH,
      },
      body: SAMPLE_DLR_TEXT,
    });
    expect(res.status).toBe(200);
    expect(seen).toEqual(["r-1"]);
  });
});

describe("createReceiver: fetch", () => {
  it("answers a web Request with a web Response", async () => {
    const { receiver, calls } = setup();
    const res = await receiver.fetch(
      new Request("http://localhost/webhooks", {
        method: "POST",
        headers: AUTH,
        body: SAMPLE_CALL_TEXT,
      }),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(calls).toHaveLength(1);
  });
});

describe("createReceiver: options are checked at construction", () => {
  const onDelivery = () => {};
  it.each([
    [{ onDelivery }, /no token given/],
    [{ token: "", onDelivery }, /`token` is empty/],
    [{ token: [], onDelivery }, /must be a string, an array/],
    [{ token: ["a", ""], onDelivery }, /`token\[1\]` is empty/],
    [{ token: 42, onDelivery }, /must be a string/],
    [{ token: "t", onDelivery, dedupe: {} }, /`dedupe` must be a dedupe store/],
    [{ token: "t", onDelivery, deadlineMs: 0 }, /`deadlineMs` must be a positive/],
    [{ token: "t", onDelivery, logger: {} }, /`logger` must have `warn` and `error`/],
    [{ token: "t", onDelivery, dedupeKey: "id" }, /`dedupeKey` must be a function/],
    [{ token: "t", onDelivery, queue: { enqueue: async () => {} } }, /either `queue`/],
    [{ token: "t", queue: {} }, /`queue` must be a report queue/],
    [{ token: " t" }, /whitespace around it/],
    [{ token: "to ken" }, /has a space at character 3/],
    [{ token: "tok\u0000en" }, /control character at character 4/],
    [{ token: "tokén" }, /non-ASCII character at character 4/],
    [{ token: "token," }, /ends with a comma/],
    [null, /must be an object, or left out/],
    ["t", /must be an object, or left out/],
    [{ token: "t", onDelivery: "nope" }, /`onDelivery` must be a function/],
    [{ token: "t", auth: false, onDelivery }, /either `token` or `auth: false`/],
    [{ token: "t", onDelivery, maxBodyBytes: 0 }, /maxBodyBytes/],
    [{ token: "t", onDelivery, bodyTimeoutMs: 0 }, /`bodyTimeoutMs` must be a positive whole/],
    [{ token: "t", onDelivery, bodyTimeoutMs: 1.5 }, /`bodyTimeoutMs` must be a positive whole/],
    [{ token: "t", onDelivery, timeZone: "India/Delhi" }, /India\/Delhi/],
    [{ token: "t", onDelivery, header: "bad header" }, /header name/],
  ])("%o throws %s", (options, message) => {
    expect(() => createReceiver(options as unknown as ReceiverOptions)).toThrow(message);
  });

  it("never echoes the token in a construction error", () => {
    expect(() => createReceiver({ token: ["secret-abc", ""], onDelivery })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("secret-abc") }),
    );
  });
});
