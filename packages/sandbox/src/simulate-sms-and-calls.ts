import type { CallPayload, DeliveryPayload } from "@reportkit/wire";
import { FieldErrors } from "./field-errors.js";
import type { MessageLog } from "./message-log.js";
import { type PushRequest, standardPush } from "./push-request.js";
import type { Pusher, PushJob, PushOutcome } from "./pusher.js";
import { MAX_RECORDING_BYTES, recordingBytesFor, WAV_HEADER_BYTES } from "./recording-audio.js";
import { composedValuesOf, renderComposed } from "./render-composed.js";
import {
  buildCallReport,
  buildDeliveryReport,
  buildOptOut,
  type CallOverrides,
  type DeliveryOverrides,
  documentedCall,
  documentedDelivery,
  type OptOutOverrides,
  type PayloadStyle,
  type SandboxCallPayload,
  type SandboxDeliveryPayload,
  type SandboxOptOutPayload,
  withoutDeliveryTime,
} from "./reports.js";
import type { VoiceLog } from "./voice-log.js";
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

export interface OptOutInput extends OptOutOverrides {
  /** The webhook that receives the opt-out (a standard one). */
  webhookId: string;
}

/** A simulated message or call, and the fate of its report. */
export interface Dispatched<R> {
  report: R;
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

/** A report the sandbox sent, kept so it can be sent again. */
interface SentReport {
  webhookId: string;
  report: DeliveryPayload | CallPayload;
  reportType: PushJob["reportType"];
  reportId: string;
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
    return this.dispatch(webhook, report, "delivery", report.id);
  }

  makeCall(input: CallInput): Dispatched<SandboxCallPayload> {
    const webhook = this.webhookFor(input.webhookId, "call");
    const { webhookId: _, recordingBytes: given, ...overrides } = input;
    const recordingBytes = checkRecordingBytes(given);
    const now = new Date(this.now());
    const complete = buildCallReport(webhook.id, overrides, { now, timeZone: this.timeZone });
    this.log?.call(complete);
    if (this.voice !== undefined) {
      // The default recording is the sandbox's own file; a recordingUrl given is kept as given.
      const recorded = overrides.recordingUrl === undefined && complete.recording_url !== undefined;
      const bytes = recorded
        ? (recordingBytes ?? recordingBytesFor(Number(complete.duration)))
        : undefined;
      const url = this.voice.log.call(complete, now.getTime(), bytes, this.voice.origin());
      if (url !== undefined) complete.recording_url = url;
    }
    const report = this.shape(webhook, complete, documentedCall, (r) => r);
    return this.dispatch(webhook, report, "call", report.mid);
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
  resend(reportId: string): Dispatched<DeliveryPayload | CallPayload> {
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
    return this.dispatch(webhook, sent.report, sent.reportType, sent.reportId);
  }

  /**
   * Simulates a number opting out (the `sms:unsubscription` event): the opt-out is pushed to
   * the webhook as strict JSON, as the event page shows it.
   */
  optOut(input: OptOutInput): Dispatched<SandboxOptOutPayload> {
    const webhook = this.webhookFor(input.webhookId, "unsubscribe");
    const { webhookId: _, ...overrides } = input;
    const report = buildOptOut(overrides, { now: new Date(), timeZone: this.timeZone });
    return this.dispatch(webhook, report, "unsubscribe", report.id);
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

  private webhookFor(id: unknown, type: PushJob["reportType"]): StoredWebhook {
    if (typeof id !== "string" || id.trim() === "") {
      throw new FieldErrors({ webhook_id: ["The webhook id field is required."] });
    }
    const webhook = this.store.get(id.trim());
    if (webhook === undefined) {
      throw new FieldErrors({ webhook_id: ["The selected webhook id is invalid."] });
    }
    if (webhook.composed !== null && type === "unsubscribe") {
      throw new FieldErrors({
        webhook_id: [
          "The selected webhook is a composed webhook: opt-outs go to standard webhooks (through a subscription).",
        ],
      });
    }
    if (webhook.composed !== null && webhook.composed.type !== type) {
      const other = webhook.composed.type === "call" ? "call reports" : "SMS delivery reports";
      throw new FieldErrors({
        webhook_id: [`The selected webhook is a composed webhook for ${other}.`],
      });
    }
    return webhook;
  }

  private dispatch<R extends DeliveryPayload | CallPayload | SandboxOptOutPayload>(
    webhook: StoredWebhook,
    report: R,
    reportType: PushJob["reportType"],
    reportId: string,
  ): Dispatched<R> {
    this.sent.delete(reportId);
    this.sent.set(reportId, { webhookId: webhook.id, report, reportType, reportId });
    if (this.sent.size > MAX_REMEMBERED_REPORTS) {
      this.sent.delete(this.sent.keys().next().value as string);
    }
    // The webhook's secret as the bearer, else the sandbox's REPORTKIT_SECRET (never its token).
    const bearer = bearerOf(webhook, this.fallbackSecret)?.secret ?? null;
    const render = (): Promise<PushRequest> =>
      reportType === "unsubscribe"
        ? Promise.resolve(standardPush(webhook.uri, report, bearer, "complete"))
        : webhook.composed === null
          ? Promise.resolve(standardPush(webhook.uri, report, bearer, this.payloads))
          : renderComposed(
              webhook.composed,
              composedValuesOf(reportType, report as DeliveryPayload | CallPayload, webhook.id),
              bearer,
            );
    const job = (request: PushRequest): PushJob => ({
      reportId,
      reportType,
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
      return { report, webhookId: webhook.id, pushed: false, outcome };
    }
    const outcome = this.track(render().then((request) => this.pusher.push(job(request))));
    return { report, webhookId: webhook.id, pushed: true, outcome };
  }
}
