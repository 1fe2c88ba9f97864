// The replies core gives when something is slow, broken or closing, over a real socket on every
// adapter (the conformance table compares them byte for byte; here the wire itself is real:
// Node's HTTP server, each framework's reply path, and a client that hangs up mid-body).
import type { ReceiverOptions, ReportkitError } from "@reportkit/core";
import type { ReportQueue } from "@reportkit/core/adapter";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import { faultyDedupe, memoryQueue } from "../support/faulty-stores.js";
import { ADAPTERS, disconnectMidBody, type Served } from "./served.js";

const JSON_HEADERS = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const DLR = JSON.stringify(SAMPLE_DLR);
/** Far below the 3 s and more a hanging handler or queue takes, far above a local reply's time. */
const DEADLINE_MS = 300;

/** A promise the test settles: a handler (or queue) that waits on it is slow until then. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

interface Answer {
  status: number;
  headers: Headers;
  body: { ok: boolean; duplicate?: boolean; error?: { code: string; message: string } };
}

async function post(served: Served, body = DLR): Promise<Answer> {
  const response = await fetch(served.url, { method: "POST", headers: JSON_HEADERS, body });
  expect(response.headers.get("content-type")).toBe("application/json");
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Answer["body"],
  };
}

/** A "not now" reply: this status and code, Retry-After in seconds, the message core gives. */
function expectRetryLater(
  answer: Answer,
  code: string,
  retryAfter: string,
  message: RegExp,
  status = 503,
) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get("retry-after")).toBe(retryAfter);
  expect(answer.body).toEqual({
    ok: false,
    error: { code, message: expect.stringMatching(message) },
  });
}

describe.each(ADAPTERS)("$name over a real socket", ({ serve }) => {
  const opened: Served[] = [];
  const gates: (() => void)[] = [];
  afterEach(async () => {
    // Slow handlers finish, then the servers stop.
    for (const open of gates.splice(0)) open();
    await Promise.all(opened.splice(0).map((served) => served.close()));
  });

  async function start(options: ReceiverOptions): Promise<Served> {
    const served = await serve({ logger: false, ...options });
    opened.push(served);
    return served;
  }

  /** A handler that waits on a gate the test opens (or afterEach does). */
  function slowHandler() {
    const { opened: done, open } = gate();
    gates.push(open);
    const handler = vi.fn(() => done);
    return { handler, open };
  }

  it("a handler slower than deadlineMs: 503 handler_timeout with Retry-After; it keeps running, and once it succeeded a retry is a duplicate", async () => {
    const slow = slowHandler();
    const served = await start({ deadlineMs: DEADLINE_MS, onDelivery: slow.handler });
    expectRetryLater(await post(served), "handler_timeout", "30", /did not finish in time/);
    // Still running: the retry finds the first attempt's claim.
    expectRetryLater(await post(served), "in_progress", "30", /earlier attempt/, 409);
    slow.open();
    await vi.waitFor(
      async () => expect((await post(served)).body).toEqual({ ok: true, duplicate: true }),
      { timeout: 10_000, interval: 50 },
    );
    expect(slow.handler).toHaveBeenCalledTimes(1);
  });

  it("a dedupeKey that returns something else than a string: 500 internal_error, the handler not run", async () => {
    const onDelivery = vi.fn();
    const served = await start({ dedupe: { key: () => "" }, onDelivery });
    const answer = await post(served);
    expect(answer.status).toBe(500);
    expect(answer.headers.get("retry-after")).toBeNull();
    expect(answer.body).toEqual({
      ok: false,
      error: { code: "internal_error", message: expect.stringMatching(/failed unexpectedly/) },
    });
    // The reason (a bug of the app's dedupeKey) is for onError and the log, not the sender.
    expect(JSON.stringify(answer.body)).not.toContain("dedupeKey");
    expect(onDelivery).not.toHaveBeenCalled();
  });

  it("a handler that throws: 500 handler_failed, its message never in the reply", async () => {
    const served = await start({
      onCall() {
        throw new Error("db password is hunter2");
      },
    });
    const answer = await post(served, JSON.stringify(SAMPLE_CALL));
    expect(answer.status).toBe(500);
    expect(answer.body.error?.code).toBe("handler_failed");
    expect(JSON.stringify(answer.body)).not.toContain("hunter2");
  });

  it("no handler attached yet: 503 no_handler with Retry-After: 5", async () => {
    const served = await start({});
    expectRetryLater(await post(served), "no_handler", "5", /No report handler is attached/);
  });

  it("the dedupe store unreachable: 503 dedupe_unavailable with Retry-After, the handler not run", async () => {
    const onDelivery = vi.fn();
    const served = await start({ dedupe: faultyDedupe({ fails: "claim" }), onDelivery });
    expectRetryLater(await post(served), "dedupe_unavailable", "30", /dedupe store is unreachable/);
    expect(onDelivery).not.toHaveBeenCalled();
  });

  it("queue mode, the queue unreachable: 503 queue_unavailable with Retry-After", async () => {
    const jobs: unknown[] = [];
    const queue = memoryQueue((job) => jobs.push(job), { fails: "rejects", times: 1 });
    const served = await start({ queue });
    expectRetryLater(await post(served), "queue_unavailable", "30", /could not store the report/);
    // Back for the retry: 202, one job.
    const retry = await post(served);
    expect(retry.status).toBe(202);
    expect(retry.body).toEqual({ ok: true, queued: true });
    expect(jobs).toHaveLength(1);
  });

  it("queue mode, the queue silent past deadlineMs: 503 queue_unavailable with Retry-After", async () => {
    const { opened: answered, open } = gate();
    gates.push(open);
    // A queue whose store does not answer until the test ends.
    const queue: ReportQueue = { enqueue: () => answered };
    const served = await start({ queue, deadlineMs: DEADLINE_MS });
    expectRetryLater(await post(served), "queue_unavailable", "30", /within deadlineMs/);
  });

  it("after the receiver's close(): 503 shutting_down with Retry-After, the handler not run", async () => {
    const onDelivery = vi.fn();
    const served = await start({ onDelivery });
    await served.closeReceiver();
    expectRetryLater(await post(served), "shutting_down", "30", /shutting down/);
    expect(onDelivery).not.toHaveBeenCalled();
  });

  it("a client that hangs up mid-body: the handler never runs, onError is told, the server answers the next request", async () => {
    const onDelivery = vi.fn();
    const errors: ReportkitError[] = [];
    const served = await start({ onDelivery, onError: (error) => void errors.push(error) });
    await disconnectMidBody(served, JSON_HEADERS, DLR, 40);
    await vi.waitFor(
      () => expect(errors.map((error) => error.code)).toEqual(["body_read_failed"]),
      {
        timeout: 10_000,
      },
    );
    expect(onDelivery).not.toHaveBeenCalled();
    const next = await post(served);
    expect(next.status).toBe(200);
    expect(onDelivery).toHaveBeenCalledTimes(1);
  });
});
