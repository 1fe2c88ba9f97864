// Deduplication, deadlines, queue mode and a receiver closing: how a provider's retries
// are answered.
import { createHash } from "node:crypto";
import type { ErrorCode } from "@reportkit/core";
import { SAMPLE_CALL, SAMPLE_DLR } from "../../fixtures/samples.js";
import type { Call, Setup } from "../setup.js";
import {
  AUTH,
  CALL_JSON,
  CALL_REPORT,
  CONCURRENT,
  called,
  DLR_FORM,
  DLR_JSON,
  DLR_REPORT,
  delivered,
  FORM_TYPE,
  post,
} from "./shared.js";
import type { ConformanceCase, ExpectedReply, RequestSpec } from "./types.js";

/** Deduplication on, with the default store (this process's memory). */
const ONCE: Setup = { dedupe: "memory" };
const DUPLICATE: ExpectedReply = { status: 200, body: { ok: true, duplicate: true } };
const QUEUED: ExpectedReply = { status: 202, body: { ok: true, queued: true } };
/** A "not now" reply: 503 (or 409), and when to try again, in seconds. */
const RETRY_LATER = (code: ErrorCode, status = 503): ExpectedReply => ({
  status,
  code,
  headers: { "retry-after": "30" },
});
/** `defaultDedupeKey` of each sample (README "Deduplication"): the queue's job id. */
const DLR_KEY = `delivery:${SAMPLE_DLR.id}:${SAMPLE_DLR.status}`;
// The callee as the first 16 hex digits of its SHA-256, never the number.
const CALL_KEY = `call:${SAMPLE_CALL.mid}:${createHash("sha256").update(String(SAMPLE_CALL.to)).digest("hex").slice(0, 16)}:${SAMPLE_CALL.status}:${Date.parse(CALL_REPORT.startedAt)}`;
const enqueued = (report: object, key: string): Call => ({ handler: "queue", report, key });

export const RETRY_AND_QUEUE_CASES: ConformanceCase[] = [
  // ---- Deduplication on (the in-memory store; a store that fails on demand) -------------
  {
    name: "dedupe on: a DLR, then its retry: 200, then 200 duplicate; the handler runs once",
    setup: ONCE,
    requests: [...post(DLR_JSON), ...post(DLR_JSON)],
    expect: { sequence: [{ status: 200 }, DUPLICATE], calls: [delivered()] },
  },
  {
    name: "dedupe on: a call report, then its retry: 200, then 200 duplicate; the handler runs once",
    setup: ONCE,
    requests: [...post(CALL_JSON), ...post(CALL_JSON)],
    expect: { sequence: [{ status: 200 }, DUPLICATE], calls: [called] },
  },
  {
    name: "dedupe on: the retry of a JSON report sent as a form is the same report: duplicate",
    setup: ONCE,
    requests: [...post(DLR_JSON), ...post(DLR_FORM, { ...AUTH, "content-type": FORM_TYPE })],
    expect: { sequence: [{ status: 200 }, DUPLICATE], calls: [delivered()] },
  },
  {
    name: "dedupe on: the same message with a later status is another report: both run",
    setup: ONCE,
    requests: [...post(JSON.stringify({ ...SAMPLE_DLR, status: "ACCEPTD" })), ...post(DLR_JSON)],
    expect: {
      sequence: [{ status: 200 }, { status: 200 }],
      calls: [
        delivered({
          ...DLR_REPORT,
          status: "ACCEPTD",
          final: false,
          outcome: "pending",
          raw: { ...SAMPLE_DLR, status: "ACCEPTD" },
        }),
        delivered(),
      ],
    },
  },
  {
    name: "dedupe on: 100 different reports at once: none lost, none delivered twice",
    setup: ONCE,
    requests: CONCURRENT.map(({ body }) => post(body)[0] as RequestSpec),
    expect: { status: 200, calls: CONCURRENT.map(({ report }) => delivered(report)) },
  },
  {
    name: "dedupe on: a handler that throws is not remembered: its retry runs it again",
    setup: { ...ONCE, handler: "throws" },
    requests: [...post(DLR_JSON), ...post(DLR_JSON)],
    expect: {
      sequence: [
        { status: 500, code: "handler_failed" },
        { status: 500, code: "handler_failed" },
      ],
      calls: [delivered(), delivered()],
    },
  },
  {
    name: "a handler slower than deadlineMs (300 ms): 503 handler_timeout with Retry-After",
    setup: { handler: "hangs", deadlineMs: 300 },
    requests: post(DLR_JSON),
    expect: { ...RETRY_LATER("handler_timeout"), calls: [delivered()] },
  },
  {
    name: "dedupe on: a retry while the first attempt still runs: 409 in_progress with Retry-After",
    setup: { ...ONCE, handler: "hangs", deadlineMs: 300 },
    requests: [...post(DLR_JSON), ...post(DLR_JSON)],
    expect: {
      sequence: [RETRY_LATER("handler_timeout"), RETRY_LATER("in_progress", 409)],
      calls: [delivered()],
    },
  },
  {
    name: "the dedupe store unreachable: 503 dedupe_unavailable with Retry-After, no call",
    setup: { dedupe: { fails: "claim" } },
    requests: [...post(DLR_JSON), ...post(CALL_JSON)],
    expect: { ...RETRY_LATER("dedupe_unavailable"), calls: [] },
  },
  {
    name: "the dedupe store down for the first attempt, back for the retries: 503, 200, duplicate",
    setup: { dedupe: { fails: "claim", times: 1 } },
    requests: [...post(DLR_JSON), ...post(DLR_JSON), ...post(DLR_JSON)],
    expect: {
      sequence: [RETRY_LATER("dedupe_unavailable"), { status: 200 }, DUPLICATE],
      calls: [delivered()],
    },
  },
  {
    name: "the dedupe store fails to mark a report done after the handler succeeded: still 200",
    setup: { dedupe: { fails: "complete" } },
    requests: post(DLR_JSON),
    expect: { status: 200, calls: [delivered()] },
  },

  // ---- Queue mode (a queue in memory; one that fails on demand) --------------------------
  {
    name: "queue mode: a DLR is enqueued under its dedupe key: 202 queued",
    setup: { queue: "memory" },
    requests: post(DLR_JSON),
    expect: { ...QUEUED, calls: [enqueued(DLR_REPORT, DLR_KEY)] },
  },
  {
    name: "queue mode: a call report is enqueued under its dedupe key: 202 queued",
    setup: { queue: "memory" },
    requests: post(CALL_JSON),
    expect: { ...QUEUED, calls: [enqueued(CALL_REPORT, CALL_KEY)] },
  },
  {
    name: "queue mode: a retry of a queued report: 202 again, no second job",
    setup: { queue: "memory" },
    requests: [...post(DLR_JSON), ...post(DLR_JSON)],
    expect: { sequence: [QUEUED, QUEUED], calls: [enqueued(DLR_REPORT, DLR_KEY)] },
  },
  {
    name: "queue mode: the queue unreachable: 503 queue_unavailable with Retry-After",
    setup: { queue: { fails: "rejects" } },
    requests: post(DLR_JSON),
    expect: { ...RETRY_LATER("queue_unavailable"), calls: [] },
  },
  {
    name: "queue mode: the queue does not answer within deadlineMs (300 ms): 503 queue_unavailable",
    setup: { queue: { fails: "hangs" }, deadlineMs: 300 },
    requests: post(DLR_JSON),
    expect: { ...RETRY_LATER("queue_unavailable"), calls: [] },
  },
  {
    name: "queue mode: the queue down for the first attempt, back for the retry: 503, then 202",
    setup: { queue: { fails: "rejects", times: 1 } },
    requests: [...post(DLR_JSON), ...post(DLR_JSON)],
    expect: {
      sequence: [RETRY_LATER("queue_unavailable"), QUEUED],
      calls: [enqueued(DLR_REPORT, DLR_KEY)],
    },
  },
  {
    name: "queue mode: a dedupeKey that returns an empty string: 500 internal_error, no job",
    setup: { queue: "memory", dedupeKey: "not a string" },
    requests: post(DLR_JSON),
    expect: { status: 500, code: "internal_error", calls: [] },
  },

  // ---- A receiver closing (close(): a deploy's SIGTERM) ---------------------------------
  {
    name: "after close(): 503 shutting_down with Retry-After, no call",
    setup: { closed: true },
    requests: [...post(DLR_JSON), ...post(CALL_JSON)],
    expect: { ...RETRY_LATER("shutting_down"), calls: [] },
  },
  {
    name: "after close(), in queue mode: 503 shutting_down, no job",
    setup: { queue: "memory", closed: true },
    requests: post(DLR_JSON),
    expect: { ...RETRY_LATER("shutting_down"), calls: [] },
  },
];
