import { randomUUID } from "node:crypto";
import type { ReportKind } from "@reportkit/wire";
import { FieldErrors } from "./field-errors.js";
import type { MessageLog } from "./message-log.js";
import {
  buildNotification,
  type NotificationEvent,
  type NotificationOverrides,
  type NotificationPayload,
} from "./notifications.js";
import { documentedJson, indentedJson, type PushRequest, standardPush } from "./push-request.js";
import type { Pusher, PushJob, PushOutcome } from "./pusher.js";
import { MAX_RECORDING_BYTES, recordingBytesFor, WAV_HEADER_BYTES } from "./recording-audio.js";
import { composedValuesOf, renderComposed } from "./render-composed.js";
import {
  buildCallReport,
  buildClick2CallReport,
  buildDeliveryReport,
  type CallOverrides,
  type Click2CallOverrides,
  type DeliveryOverrides,
  documentedCall,
  documentedDelivery,
  type PayloadStyle,
  type SandboxCallPayload,
  type SandboxClick2CallPayload,
  type SandboxDeliveryPayload,
  withoutDeliveryTime,
} from "./reports.js";
import type { VoiceCall, VoiceLog } from "./voice-log.js";
import { bearerOf, type StoredWebhook, type WebhookStore } from "./webhook-store.js";

export interface SmsInput extends DeliveryOverrides {
  /** The webhook that receives the delivery report. */
  webhookId: string;
}

export interface CallInput extends CallOverrides {
  /** The webhook that receives the call report. */
  webhookId: string;
  /**
   * Sandbox only: the size in bytes of the call's recording, for a recorded call (one with the
   * default `recordingUrl`). Default the call's duration in 8 kHz 8-bit mono WAV (8 kB a
   * second); a large one (tens of MB, made as it is read) tests a downloader's bounds.
   */
  recordingBytes?: number;
}

export interface Click2CallInput extends Click2CallOverrides {
  /** The webhook that receives the Click2Call report. */
  webhookId: string;
  /** As for `CallInput`: the recording's size in bytes, for a recorded call. */
  recordingBytes?: number;
}

/** A simulated message or call, and the fate of its report. */
export interface Dispatched<R> {
  report: R;
  /** What the push log knows it by (`PushAttempt.reportId`). */
  reportId: string;
  /** What the receiver takes it as. */
  reportType: ReportKind;
  webhookId: string;
  /** True when the report is being pushed; false when the webhook is inactive. */
  pushed: boolean;
  /** Resolves with the push's final outcome ("skipped" for an inactive or deleted webhook). */
  outcome: Promise<PushOutcome>;
}

/**
 * A recording size given (a number, or its digits as the HTTP API may send it), checked.
 * @throws FieldErrors when it is not a size the sandbox makes
 */
function checkRecordingBytes(given: unknown): number | undefined {
  if (given === undefined) return undefined;
  const bytes = typeof given === "string" && /^\d{1,10}$/.test(given) ? Number(given) : given;
  if (
    typeof bytes !== "number" ||
    !Number.isSafeInteger(bytes) ||
    bytes < WAV_HEADER_BYTES ||
    bytes > MAX_RECORDING_BYTES
  ) {
    throw new FieldErrors({
      recording_bytes: [
        `The recording bytes field must be a whole number from ${WAV_HEADER_BYTES} to ${MAX_RECORDING_BYTES}.`,
      ],
    });
  }
  return bytes;
}

export const INACTIVE_REASON =
  "webhook is inactive (status 0): not pushed (sandbox assumption; the provider's documentation is silent)";

export const INACTIVE_RETRY_REASON =
  "webhook was made inactive (status 0): retry not sent (sandbox assumption; the provider's documentation is silent)";

/** A body to push: what it is, what the push log knows it by, and how its page writes it. */
interface Sendable {
  report: object;
  reportType: ReportKind;
  reportId: string;
  /** The provider's event name of an opt-out or an event. */
  event?: string;
  /** How the documentation's samples of it are written ("documented" payloads). */
  written: (report: object) => string;
}

/** A call report as the voice logs list its call, under `id`. */
function voiceCallOf(
  id: string,
  report: SandboxCallPayload | SandboxClick2CallPayload,
  billing: number,
  hangupBy: string,
): VoiceCall {
  return {
    id,
    from: String(report.from),
    to: String(report.to),
    bridge: String(report.bridge),
    source: String(report.source),
    status: report.status,
    duration: Number(report.duration),
    billing,
    hangupBy,
    startAt: report.start_at,
    endAt: report.end_at,
  };
}

/** A report the sandbox sent, kept so it can be sent again. */
interface SentReport extends Sendable {
  webhookId: string;
}

/** How many sent reports are remembered for a resend (oldest forgotten first). */
const MAX_REMEMBERED_REPORTS = 1_000;

/** Sends simulated messages and calls: builds the report, then hands it to the pusher. */
export class Dispatcher {
  private readonly pending = new Set<Promise<unknown>>();
  private readonly sent = new Map<string, SentReport>();

  constructor(
    private readonly store: WebhookStore,
    private readonly pusher: Pusher,
    private readonly timeZone: string,
    private readonly payloads: PayloadStyle = "documented",
    /** The bearer for a webhook without a secret (REPORTKIT_SECRET, from the CLI). */
    private readonly fallbackSecret: string | undefined = undefined,
    /** Where each message and call is kept for the pull APIs. */
    private readonly log: MessageLog | undefined = undefined,
    /** Where each call and its recording is kept for the voice logs; none: no recordings made. */
    private readonly voice: { log: VoiceLog; origin: () => string } | undefined = undefined,
    /** The clock of the reports' times, in ms. */
    private readonly now: () => number = Date.now,
  ) {}

  sendSms(input: SmsInput): Dispatched<SandboxDeliveryPayload> {
    const webhook = this.webhookFor(input.webhookId, "delivery");
    const { webhookId: _, ...overrides } = input;
    const complete = buildDeliveryReport(overrides, {
      now: new Date(this.now()),
      timeZone: this.timeZone,
    });
    this.log?.sms(complete, overrides.message);
    const report = this.shape(webhook, complete, documentedDelivery, withoutDeliveryTime);
    return this.dispatch(webhook, {
      report,
      reportType: "delivery",
      reportId: report.id,
      written: documentedJson,
    });
  }

  makeCall(input: CallInput): Dispatched<SandboxCallPayload> {
    const webhook = this.webhookFor(input.webhookId, "call");
    const { webhookId: _, recordingBytes: given, ...overrides } = input;
    const recordingBytes = checkRecordingBytes(given);
    const now = new Date(this.now());
    const complete = buildCallReport(webhook.id, overrides, { now, timeZone: this.timeZone });
    this.log?.call(complete);
    const seconds = Number(complete.duration);
    const call = voiceCallOf(complete.mid, complete, seconds, seconds > 0 ? "caller" : "");
    this.record(call, complete, overrides.recordingUrl, recordingBytes, now);
    const report = this.shape(webhook, complete, documentedCall, (r) => r);
    return this.dispatch(webhook, {
      report,
      reportType: "call",
      reportId: report.mid,
      written: documentedJson,
    });
  }

  /**
   * A Click2Call (`v2/voice/c2c.md`): its report pushed to the webhook, the call kept in the
   * voice logs (with its recording) under a call id of its own, which the push log knows it by
   * (the report has no `mid` unless given). Not listed by the call-status API, which lists
   * outbound-dial calls by their `mid`.
   */
  click2Call(input: Click2CallInput): Dispatched<SandboxClick2CallPayload> {
    const webhook = this.webhookFor(input.webhookId, "call");
    const { webhookId: _, recordingBytes: given, ...overrides } = input;
    const recordingBytes = checkRecordingBytes(given);
    const now = new Date(this.now());
    const complete = buildClick2CallReport(webhook.id, overrides, {
      now,
      timeZone: this.timeZone,
    });
    const callId = randomUUID();
    const billing = Number(complete.billing);
    const call = voiceCallOf(callId, complete, billing, complete.hangup_by);
    this.record(call, complete, overrides.recordingUrl, recordingBytes, now);
    const report = this.shape(webhook, complete, documentedCall, (r) => r);
    return this.dispatch(webhook, {
      report,
      reportType: "call",
      reportId: callId,
      written: indentedJson,
    });
  }

  /**
   * Pushes an opt-out or another event (`buildNotification`) to the webhook: the one subscribed
   * to the event, or a smart link's (the caller decides which).
   */
  notify(
    webhookId: string,
    event: NotificationEvent,
    overrides: NotificationOverrides,
  ): Dispatched<NotificationPayload> {
    const built = buildNotification(event, overrides, {
      now: new Date(this.now()),
      timeZone: this.timeZone,
    });
    const webhook = this.webhookFor(webhookId, built.kind);
    return this.dispatch(webhook, {
      report: built.payload,
      reportType: built.kind,
      reportId: built.reportId,
      event,
      // The smart-link visit's page writes it with a trailing comma; the events' pages do not.
      written: event === "link:visit" ? documentedJson : indentedJson,
    });
  }

  /**
   * Keeps a call in the voice logs; a recorded one (its default recording) gets the sandbox's
   * own file, whose URL replaces the made-up one in the report.
   */
  private record(
    call: VoiceCall,
    complete: { recording_url?: string },
    given: string | null | undefined,
    recordingBytes: number | undefined,
    now: Date,
  ): void {
    if (this.voice === undefined) return;
    // The default recording is the sandbox's own file; a recordingUrl given is kept as given.
    const recorded = given === undefined && complete.recording_url !== undefined;
    const bytes = recorded ? (recordingBytes ?? recordingBytesFor(call.duration)) : undefined;
    const url = this.voice.log.call(call, now.getTime(), bytes, this.voice.origin());
    if (url !== undefined) complete.recording_url = url;
  }

  /**
   * The report in the configured shape. A standard webhook gets the payload as documented; a
   * composed one has every variable the documentation lists (the unix ones included), so its
   * report keeps every field, less what the message does not have (`forComposed`).
   */
  private shape<R>(
    webhook: StoredWebhook,
    complete: R,
    documented: (report: R) => R,
    forComposed: (report: R) => R,
  ): R {
    if (this.payloads === "complete") return complete;
    return webhook.composed === null ? documented(complete) : forComposed(complete);
  }

  /**
   * Pushes a report sent before again, unchanged (same id: the receiver sees what a provider
   * retry looks like), to its webhook as it is now, with a fresh set of attempts.
   * @throws FieldErrors when the report is unknown or its webhook was deleted
   */
  resend(reportId: string): Dispatched<object> {
    const sent = this.sent.get(reportId);
    if (sent === undefined) {
      throw new FieldErrors({
        report_id: ["The selected report id is invalid (unknown, or too old to be kept)."],
      });
    }
    const webhook = this.store.get(sent.webhookId);
    if (webhook === undefined) {
      throw new FieldErrors({ report_id: ["The webhook of this report was deleted."] });
    }
    return this.dispatch(webhook, sent);
  }

  /** Whether `reportId` is one the sandbox sent and still remembers. */
  knows(reportId: string): boolean {
    return this.sent.has(reportId);
  }

  /** Resolves once every report sent so far is delivered, dropped or skipped. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private track<T>(outcome: Promise<T>): Promise<T> {
    this.pending.add(outcome);
    const forget = () => this.pending.delete(outcome);
    outcome.then(forget, forget);
    return outcome;
  }

  private webhookFor(id: unknown, type: ReportKind): StoredWebhook {
    if (typeof id !== "string" || id.trim() === "") {
      throw new FieldErrors({ webhook_id: ["The webhook id field is required."] });
    }
    const webhook = this.store.get(id.trim());
    if (webhook === undefined) {
      throw new FieldErrors({ webhook_id: ["The selected webhook id is invalid."] });
    }
    if (webhook.composed !== null && webhook.composed.type !== type) {
      const other = webhook.composed.type === "call" ? "call reports" : "SMS delivery reports";
      // A composed template has variables for delivery and call reports only.
      const why =
        type === "delivery" || type === "call"
          ? ""
          : ": an opt-out or an event goes to a standard webhook";
      throw new FieldErrors({
        webhook_id: [`The selected webhook is a composed webhook for ${other}${why}.`],
      });
    }
    return webhook;
  }

  private dispatch<R extends object>(
    webhook: StoredWebhook,
    sendable: Sendable & { report: R },
  ): Dispatched<R> {
    const { report, reportType, reportId, event, written } = sendable;
    this.sent.delete(reportId);
    this.sent.set(reportId, { ...sendable, webhookId: webhook.id });
    if (this.sent.size > MAX_REMEMBERED_REPORTS) {
      this.sent.delete(this.sent.keys().next().value as string);
    }
    // The webhook's secret as the bearer, else the sandbox's REPORTKIT_SECRET (never its token).
    const bearer = bearerOf(webhook, this.fallbackSecret)?.secret ?? null;
    const render = (): Promise<PushRequest> =>
      webhook.composed === null
        ? Promise.resolve(standardPush(webhook.uri, report, bearer, this.payloads, written))
        : renderComposed(
            webhook.composed,
            composedValuesOf(webhook.composed.type, report, webhook.id),
            bearer,
          );
    const job = (request: PushRequest): PushJob => ({
      reportId,
      reportType,
      ...(event !== undefined && { event }),
      webhookId: webhook.id,
      request,
      retryBlocked: () => {
        const now = this.store.get(webhook.id);
        if (now === undefined) return "webhook was deleted: retry not sent";
        return now.status === 0 ? INACTIVE_RETRY_REASON : undefined;
      },
    });
    if (webhook.status === 0) {
      const outcome = this.track(
        render().then((request) => {
          this.pusher.skip(job(request), INACTIVE_REASON);
          return "skipped" as const;
        }),
      );
      return { report, reportId, reportType, webhookId: webhook.id, pushed: false, outcome };
    }
    const outcome = this.track(render().then((request) => this.pusher.push(job(request))));
    return { report, reportId, reportType, webhookId: webhook.id, pushed: true, outcome };
  }
}
