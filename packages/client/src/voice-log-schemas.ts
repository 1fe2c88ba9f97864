import { z } from "zod";
import { paginated } from "./paginator.js";
import {
  optionalCount,
  optionalDecimal,
  optionalText,
  resource,
  text,
  wallClock,
} from "./record-fields.js";

// The voice logs' records, as the provider's page v2/voice/logs.md shows them: Call Logs
// (`GET voice/calls`) and Recordings (`GET voice/recordings`), both in the paginator envelope
// { status: "OK", code: 200, message, data, links, meta }, 15 a page. Lenient on format as the
// pull APIs are; strict on what identifies a record: its `id` (and a call's `status`).

const CLOCK = /^(\d+):([0-5]\d):([0-5]\d)$/;

/**
 * A length of time in whole seconds: served as "00:01:33" (hours, minutes, seconds), also read
 * from a number or a digit string of seconds; null for "", null and absent ones.
 */
const optionalSeconds = z
  .union(
    [
      z.number().int().min(0),
      z.string().trim().regex(/^\d+$/).transform(Number),
      z
        .string()
        .trim()
        .regex(CLOCK)
        .transform((s) => {
          const [h, m, sec] = s.split(":").map(Number) as [number, number, number];
          return h * 3600 + m * 60 + sec;
        }),
      z.literal(""),
    ],
    { error: 'expected a length of time such as "00:01:33"' },
  )
  .nullish()
  .transform((n) => (n == null || n === "" ? null : n));

/** A call as the Call Logs API (`GET voice/calls`) serves it. */
export const CallLogRecordWireSchema = z.looseObject({
  id: text,
  call_from: optionalText,
  call_to: optionalText,
  service: optionalText,
  bridge: optionalText,
  status: text,
  duration: optionalSeconds,
  billing: optionalSeconds,
  pulsing: optionalCount,
  charges: optionalDecimal,
  start_at: wallClock,
  end_at: wallClock,
  hangup_by: optionalText,
  dtmf: optionalText,
  location: optionalText,
  region: optionalText,
  provider: optionalText,
  notes: optionalText,
  audio: optionalText,
  name: optionalText,
});

/** A call of the Call Logs, as the client returns it; `raw` keeps it as served. */
export const CallLogRecordSchema = resource(CallLogRecordWireSchema, (r) => ({
  id: r.id,
  /** Phone numbers as digit strings, whether served as strings or numbers. */
  callFrom: r.call_from,
  callTo: r.call_to,
  /** "IN" (an incoming call) in the page's sample. */
  service: r.service,
  /** The DID the call went through. */
  bridge: r.bridge,
  /** RECEIVED, ANSWER, MISSED, COMPLETED, ... (v2/voice/index.md lists them). */
  status: r.status,
  /** Seconds of the call, from the served "00:00:12". */
  duration: r.duration,
  /** Seconds billed, from the served "00:00:12". */
  billing: r.billing,
  /** The billing pulse in seconds ("30"). */
  pulsing: r.pulsing,
  /** What the call cost, in credits ("0.0150" served). */
  charges: r.charges,
  /** "yyyy-mm-dd HH:MM:SS" in the provider's zone, as served. */
  startAt: r.start_at,
  endAt: r.end_at,
  /** "caller" or "agent". */
  hangupBy: r.hangup_by,
  dtmf: r.dtmf,
  /** Codes of where the number is registered: "IN", "AP", "RJ". */
  location: r.location,
  region: r.region,
  provider: r.provider,
  notes: r.notes,
  /** The call's recording URL; null without one (the page's sample has null). */
  audio: r.audio,
  name: r.name,
}));

export type CallLogRecord = z.output<typeof CallLogRecordSchema>;

/** `GET voice/calls`: 15 a page with the paginator. */
export const CallLogPageSchema = paginated(CallLogRecordSchema);
export type CallLogPage = z.output<typeof CallLogPageSchema>;

/** A recording as the Recordings API (`GET voice/recordings`) serves it. */
export const RecordingWireSchema = z.looseObject({
  id: text,
  call_from: optionalText,
  call_to: optionalText,
  audio: optionalText,
  duration: optionalSeconds,
  agent: optionalText,
  created_at: wallClock,
});

/** A recording, as the client returns it; `raw` keeps it as served. */
export const RecordingSchema = resource(RecordingWireSchema, (r) => ({
  id: r.id,
  /** Phone numbers as digit strings, whether served as strings or numbers. */
  callFrom: r.call_from,
  callTo: r.call_to,
  /**
   * A fresh URL of the recording: presigned, it works for the time its own `X-Amz-Expires`
   * says (3600 s in the page's sample; `recordingExpiry` reads it). Null when not served.
   */
  audio: r.audio,
  /** Seconds, from the served "00:01:33". */
  duration: r.duration,
  agent: r.agent,
  /** "yyyy-mm-dd HH:MM:SS" in the provider's zone, as served. */
  createdAt: r.created_at,
}));

export type Recording = z.output<typeof RecordingSchema>;

/** `GET voice/recordings`: 15 a page with the paginator. */
export const RecordingPageSchema = paginated(RecordingSchema);
export type RecordingPage = z.output<typeof RecordingPageSchema>;
