import { describe, expect, it, vi } from "vitest";
import {
  AUTH,
  errorOf,
  JSON_TYPE,
  post,
  setup,
} from "../../../../test/fixtures/receiver-requests.js";
import {
  SAMPLE_CALL,
  SAMPLE_CALL_TEXT,
  SAMPLE_DLR,
  SAMPLE_DLR_TEXT,
  TOKEN,
} from "../../../../test/fixtures/samples.js";
import type { ReportContext } from "../process/handler-context.js";
import type { ReportkitError } from "../reply/errors.js";
import { createReceiver } from "./create-receiver.js";
import type { ReceiverRequest } from "./types.js";

let sequence = 0;
function dlr(overrides: Partial<ReceiverRequest> = {}, id = `respond-${++sequence}`) {
  return {
    method: "POST",
    url: "/webhooks",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ ...SAMPLE_DLR, id }),
    ...overrides,
  } satisfies ReceiverRequest;
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
    const receiver = createReceiver({ secret: TOKEN, onDelivery: delivered });
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

describe("receiver.respond: handle's reply, without a promise when none is needed", () => {
  it("answers at once when every step is synchronous, and the reply is handle's", async () => {
    const seen: string[] = [];
    const receiver = createReceiver({ secret: TOKEN, onDelivery: (r) => void seen.push(r.id) });
    const first = receiver.respond(dlr({}, "same"));
    expect(first).not.toBeInstanceOf(Promise);
    expect(first).toEqual(await createReceiver({ secret: TOKEN, onDelivery() {} }).handle(dlr()));
    const again = receiver.respond(dlr({}, "same"));
    expect(again).toMatchObject({ status: 200, body: '{"ok":true,"duplicate":true}' });
    expect(seen).toEqual(["same"]);
  });

  it("refusals are replies too, never throws", () => {
    const receiver = createReceiver({ secret: TOKEN, onDelivery() {}, logger: false });
    const refused = receiver.respond(dlr({ headers: { authorization: "Bearer wrong" } }));
    expect(refused).toMatchObject({ status: 401 });
    expect(receiver.respond(dlr({ body: "{" }))).toMatchObject({ status: 400 });
    expect(receiver.respond(null as unknown as ReceiverRequest)).toMatchObject({ status: 405 });
  });

  it("gives a promise when something is asynchronous: a handler, a body still to read", async () => {
    const receiver = createReceiver({
      secret: TOKEN,
      onDelivery: () => new Promise((resolve) => setTimeout(resolve, 5)),
    });
    const pending = receiver.respond(dlr());
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toMatchObject({ status: 200, body: '{"ok":true}' });

    const streamed = receiver.respond(
      dlr({ body: new Blob([JSON.stringify({ ...SAMPLE_DLR, id: "streamed" })]).stream() }),
    );
    expect(streamed).toBeInstanceOf(Promise);
    expect(await streamed).toMatchObject({ status: 200 });
  });

  it("a failing handler is a 500 reply either way", async () => {
    const failing = createReceiver({
      secret: TOKEN,
      logger: false,
      onDelivery: () => {
        throw new Error("boom");
      },
    });
    expect(failing.respond(dlr())).toMatchObject({ status: 500 });
    const rejecting = createReceiver({
      secret: TOKEN,
      logger: false,
      onDelivery: () => Promise.reject(new Error("boom")),
    });
    expect(await rejecting.respond(dlr())).toMatchObject({ status: 500 });
  });
});
