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
import type { ReceiverRequest } from "../base/types.js";
import type { ReportContext } from "../process/run-handler.js";
import type { ReportkitError } from "../reply/errors.js";
import { tooLarge } from "../reply/errors.js";
import { createReceiver } from "./create-receiver.js";

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
      "a call without mid, webhook_id or numbers",
      JSON.stringify({ status: "ANSWER", duration: "23" }),
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

  it("a body stream failing with a framework's refusal is answered as that refusal, onError told", async () => {
    const { receiver, errors } = setup({ body: { maxBytes: 10 } });
    const refused = {
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(tooLarge(10)) }),
    };
    const res = await receiver.handle({ method: "POST", url: "/", headers: AUTH, body: refused });
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
    // A body that is no body (a scalar an adapter passed by mistake): 400, not a crash.
    for (const body of [5, true]) {
      const res = await receiver.handle({
        method: "POST",
        url: "/",
        headers: AUTH,
        body: body as unknown as string,
      });
      expect(res.status).toBe(400);
      expect(errorOf(res.body).code).toBe("body_read_failed");
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

describe("receiver.handle: every failure is a reply, never a rejection", () => {
  it("answers a duplicate without running the handler again", async () => {
    const seen: string[] = [];
    const receiver = createReceiver({ secret: TOKEN, onDelivery: (r) => void seen.push(r.id) });
    expect(await receiver.handle(dlr({}, "same"))).toEqual(
      await createReceiver({ secret: TOKEN, onDelivery() {} }).handle(dlr()),
    );
    const again = await receiver.handle(dlr({}, "same"));
    expect(again).toMatchObject({ status: 200, body: '{"ok":true,"duplicate":true}' });
    expect(seen).toEqual(["same"]);
  });

  it("refusals are replies too", async () => {
    const receiver = createReceiver({ secret: TOKEN, onDelivery() {}, logger: false });
    const refused = await receiver.handle(dlr({ headers: { authorization: "Bearer wrong" } }));
    expect(refused).toMatchObject({ status: 401 });
    expect(await receiver.handle(dlr({ body: "{" }))).toMatchObject({ status: 400 });
    expect(await receiver.handle(null as unknown as ReceiverRequest)).toMatchObject({
      status: 405,
    });
  });

  it("a handler that throws or rejects is a 500 reply either way", async () => {
    const failing = createReceiver({
      secret: TOKEN,
      logger: false,
      onDelivery: () => {
        throw new Error("boom");
      },
    });
    expect(await failing.handle(dlr())).toMatchObject({ status: 500 });
    const rejecting = createReceiver({
      secret: TOKEN,
      logger: false,
      onDelivery: () => Promise.reject(new Error("boom")),
    });
    expect(await rejecting.handle(dlr())).toMatchObject({ status: 500 });
  });
});

describe("defects found in the design review (issue 40), each with a test that failed before", () => {
  it("a handler that times out and then fails is journaled and told to onError once", async () => {
    const kept: string[] = [];
    const { receiver, errors } = setup({
      deadlineMs: 30,
      journal: { record: async (entry) => void kept.push(entry.error.code) },
      onDelivery: () => new Promise((_, reject) => setTimeout(() => reject(new Error("late")), 80)),
    });
    expect((await receiver.handle(dlr())).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 150));
    // Before: the late failure went through the reply path again (handler_failed, twice told).
    expect(errors.map((e) => e.code)).toEqual(["handler_timeout"]);
    expect(kept).toEqual(["handler_timeout"]);
  });

  it("fetch() answers a verification responder's 204, 205 and 304 (a Response without a body)", async () => {
    for (const status of [204, 205, 304]) {
      const receiver = createReceiver({
        secret: TOKEN,
        logger: false,
        verification: { respond: () => ({ status, body: "ignored" }) },
        onDelivery() {},
      });
      const res = await receiver.fetch(
        new Request("http://localhost/webhooks", { method: "POST", headers: AUTH, body: "{}" }),
      );
      // Before: fetch() rejected (`new Response` refuses a body for these statuses).
      expect(res.status).toBe(status);
      expect(await res.text()).toBe("");
    }
  });
});

describe("onError and the log", () => {
  it("onError observes; it does not replace the log (logger: false does), as the docs say", async () => {
    const lines: string[] = [];
    const told: string[] = [];
    const receiver = createReceiver({
      secret: TOKEN,
      logger: { warn: (m) => void lines.push(m), error: (m) => void lines.push(m) },
      onError: (error) => void told.push(error.code),
      onDelivery: () => {
        throw new Error("boom");
      },
    });
    expect((await receiver.handle(dlr())).status).toBe(500);
    expect(told).toEqual(["handler_failed"]);
    expect(lines).toEqual([expect.stringMatching(/^reportkit: handler_failed/)]);
  });
});
