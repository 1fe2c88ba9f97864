import { describe, expect, it } from "vitest";
import { postJson } from "../../../../test/fixtures/receiver-requests.js";
import { SAMPLE_CALL, SAMPLE_DLR, TOKEN } from "../../../../test/fixtures/samples.js";
import type { ReceiverRequest } from "../base/types.js";
import { adapterReceiver } from "../receiver/adapter-receiver.js";
import { createReceiver } from "../receiver/create-receiver.js";

/** A POST of `payload` with `token` as the bearer. */
function post(token: string, payload: object = SAMPLE_DLR): ReceiverRequest {
  return postJson(payload, { authorization: `Bearer ${token}` });
}

function recorder() {
  const lines: { level: "warn" | "error"; message: string }[] = [];
  return {
    lines,
    logger: {
      warn: (message: string) => void lines.push({ level: "warn", message }),
      error: (message: string) => void lines.push({ level: "error", message }),
    },
  };
}

describe("logging without onError", () => {
  it("names a failed call report by its key, which carries no phone number", async () => {
    const { lines, logger } = recorder();
    const receiver = createReceiver({
      secret: TOKEN,
      logger,
      onCall: () => {
        throw new Error("the dialer is down");
      },
    });
    await receiver.handle(post(TOKEN, SAMPLE_CALL));
    expect(lines).toHaveLength(1);
    const message = lines[0]?.message ?? "";
    expect(message).toContain(`(report call:${SAMPLE_CALL.mid}:`);
    for (const number of [SAMPLE_CALL.to, SAMPLE_CALL.from, SAMPLE_CALL.bridge]) {
      expect(message).not.toContain(String(number));
    }
  });

  it("logs each handler failure with its cause, as an error", async () => {
    const { lines, logger } = recorder();
    const receiver = createReceiver({
      secret: TOKEN,
      logger,
      dedupe: false,
      onDelivery: () => {
        throw new Error("insert failed: duplicate key");
      },
    });
    await receiver.handle(post(TOKEN));
    await receiver.handle(post(TOKEN));
    expect(lines).toHaveLength(2);
    expect(lines[0]?.level).toBe("error");
    expect(lines[0]?.message).toMatch(
      /^reportkit: handler_failed: .*\n {2}cause: Error: insert failed/,
    );
  });

  it("logs a failing token verifier as an error", async () => {
    const { lines, logger } = recorder();
    const receiver = createReceiver({
      logger,
      secret: () => {
        throw new Error("secrets store unreachable");
      },
      onDelivery: () => {},
    });
    expect((await receiver.handle(post(TOKEN))).status).toBe(500);
    expect(lines.map((l) => l.level)).toEqual(["error"]);
    expect(lines[0]?.message).toMatch(/secret_check_failed.*secrets store unreachable/s);
  });

  it("logs refusals at most once a minute per code, never with the token", async () => {
    const { lines, logger } = recorder();
    const receiver = createReceiver({ secret: TOKEN, logger, onDelivery: () => {} });
    for (let i = 0; i < 5; i++) await receiver.handle(post("wrong-token-value"));
    await receiver.handle(post(TOKEN, { neither: "report" }));
    expect(lines.map((l) => [l.level, l.message.split(" (")[0]])).toEqual([
      ["warn", "reportkit: unauthorized"],
      ["warn", "reportkit: unrecognized_report"],
    ]);
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
    expect(JSON.stringify(lines)).not.toContain("wrong-token-value");
  });

  it("limits refusal lines per cause, not per code: a wrong token after a missing one is told", async () => {
    const { lines, logger } = recorder();
    const receiver = createReceiver({ secret: TOKEN, logger, onDelivery: () => {} });
    const missing = { ...post(TOKEN), headers: { "content-type": "application/json" } };
    const noScheme = { ...post(TOKEN), headers: { authorization: TOKEN } };
    for (let i = 0; i < 3; i++) await receiver.handle(missing);
    for (let i = 0; i < 3; i++) await receiver.handle(post("wrong-token-value"));
    for (let i = 0; i < 3; i++) await receiver.handle(noScheme);
    expect(lines.map((l) => l.message)).toEqual([
      "reportkit: unauthorized (401): Missing credentials: send the webhook's secret in an Authorization: Bearer <secret> header.",
      "reportkit: unauthorized (401): The secret in an Authorization: Bearer <secret> header is not one this receiver accepts.",
      "reportkit: unauthorized (401): The Authorization header is not a Bearer credential: send the webhook's secret as an Authorization: Bearer <secret> header.",
    ]);
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });

  it("a flood of refusals with varied messages is still bounded: at most 5 lines a minute per code", async () => {
    const { lines, logger } = recorder();
    const receiver = createReceiver({
      secret: TOKEN,
      logger,
      composed: { type: "delivery", method: "GET", url: "/hooks/{{id}}/{{status}}" },
      onDelivery: () => {},
    });
    for (let i = 0; i < 20; i++) {
      // Each path names itself in the refusal's message: 20 distinct messages.
      await receiver.handle({
        method: "GET",
        url: `/elsewhere-${i}`,
        headers: post(TOKEN).headers,
      });
    }
    expect(lines).toHaveLength(5);
    expect(lines.every((l) => l.message.startsWith("reportkit: invalid_report (400)"))).toBe(true);
  });

  it("a report of a kind no handler takes is acknowledged and said once per kind", async () => {
    const { lines, logger } = recorder();
    const receiver = createReceiver({ secret: TOKEN, logger, onDelivery: () => {} });
    const call = { ...post(TOKEN, SAMPLE_CALL) };
    const replies = [
      await receiver.handle(call),
      await receiver.handle(post(TOKEN, { ...SAMPLE_CALL, mid: "other" })),
    ];
    expect(replies.map((r) => r.status)).toEqual([200, 200]);
    expect(lines).toEqual([
      {
        level: "warn",
        message:
          "reportkit: a call report arrived and was acknowledged (200) without a handler: this receiver has none for call reports. Attach one with onCall(fn) to keep them (logged once).",
      },
    ]);
    await receiver.handle(post(TOKEN));
    expect(lines).toHaveLength(1);
  });

  it("a Worker without its token: JSON 500 to each report, one line without a stack", async () => {
    const { lines, logger } = recorder();
    const receiver = adapterReceiver(
      { logger, onDelivery: () => {} },
      { env: undefined, requestEnv: { whereToSet: "in this Worker's environment" } },
    );
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push(await receiver.handle({ ...post(TOKEN), env: {} }));
    expect(replies.map((r) => [r.status, r.headers["content-type"]])).toEqual([
      [500, "application/json"],
      [500, "application/json"],
      [500, "application/json"],
    ]);
    expect(JSON.parse(replies[0]?.body ?? "")).toMatchObject({
      error: { code: "secret_check_failed" },
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.message).toContain("REPORTKIT_SECRET is neither in its options");
    expect(lines[0]?.message).not.toMatch(/\n\s+at /);
  });

  it("logs to console by default, and not at all with logger: false", async () => {
    const printed: unknown[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => void printed.push(args);
    try {
      const quiet = createReceiver({ secret: TOKEN, logger: false, onDelivery: () => {} });
      await quiet.handle(post("wrong"));
      expect(printed).toHaveLength(0);
      const loud = createReceiver({ secret: TOKEN, onDelivery: () => {} });
      await loud.handle(post("wrong"));
      expect(printed).toHaveLength(1);
    } finally {
      console.warn = original;
    }
  });

  it("a logger that throws does not change the reply", async () => {
    const receiver = createReceiver({
      secret: TOKEN,
      logger: {
        warn: () => {
          throw new Error("log sink full");
        },
        error: () => {},
      },
      onDelivery: () => {},
    });
    expect((await receiver.handle(post("wrong"))).status).toBe(401);
  });
});

describe("log lines carry the error code and the report's dedupe key", () => {
  it("as text: the key after the message, never the token", async () => {
    const { lines, logger } = recorder();
    const receiver = createReceiver({
      secret: TOKEN,
      logger,
      onDelivery: () => {
        throw new Error("insert failed");
      },
    });
    await receiver.handle(post(TOKEN));
    expect(lines).toHaveLength(1);
    expect(lines[0]?.message.split("\n")[0]).toBe(
      `reportkit: handler_failed: The report handler failed; the provider will retry this report. (report delivery:${SAMPLE_DLR.id}:DELIVRD)`,
    );
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });

  it("a key or an id with a line break, ESC or a bidi override prints on one line, escaped (issue 42, 10)", async () => {
    const { lines, logger } = recorder();
    const receiver = createReceiver({
      secret: TOKEN,
      logger,
      dedupe: { key: (report) => `k\n[fake] ok \u001b[2J\u202e${report.type}` },
      onDelivery: () => {
        throw new Error("insert failed");
      },
    });
    await receiver.handle(post(TOKEN));
    const first = lines[0]?.message.split("\n")[0] ?? "";
    expect(first).toContain("(report k\\u000a[fake] ok \\u001b[2J\\u202edelivery)");
    for (const raw of ["\u001b", "\u202e", "\n[fake]"])
      expect(lines[0]?.message).not.toContain(raw);
  });

  it("as fields for a pino or Fastify logger: code, status, dedupeKey and the cause as err", async () => {
    const calls: { level: string; fields: Record<string, unknown>; message: string }[] = [];
    const pinoLike = {
      level: "info",
      child: () => pinoLike,
      warn: (fields: Record<string, unknown>, message: string) =>
        void calls.push({ level: "warn", fields, message }),
      error: (fields: Record<string, unknown>, message: string) =>
        void calls.push({ level: "error", fields, message }),
    };
    const cause = new Error("insert failed");
    const receiver = createReceiver({
      secret: TOKEN,
      logger: pinoLike as never,
      onDelivery: () => {
        throw cause;
      },
    });
    await receiver.handle(post(TOKEN));
    await receiver.handle(post("wrong-token-value"));
    expect(calls).toEqual([
      {
        level: "error",
        fields: {
          code: "handler_failed",
          status: 500,
          dedupeKey: `delivery:${SAMPLE_DLR.id}:DELIVRD`,
          err: cause,
        },
        message:
          "reportkit: handler_failed: The report handler failed; the provider will retry this report.",
      },
      {
        level: "warn",
        fields: { code: "unauthorized", status: 401 },
        message:
          "reportkit: unauthorized (401): The secret in an Authorization: Bearer <secret> header is not one this receiver accepts.",
      },
    ]);
  });
});
