import { classifyDeliveryStatus, PROVIDER_TIME_ZONE } from "@reportkit/wire";
import type { Client } from "./create-client.js";
import { ClientError } from "./errors.js";
import { providerDay } from "./provider-day.js";
import type { CallStatusQuery, DlrQuery } from "./pull-query.js";
import { isHeaderName, type PushVerdict, type ReportPusher, reportPusher } from "./push-report.js";
import {
  callHasEnded,
  callReportOf,
  deliveryReportOf,
  type PushedReport,
  RECONCILED_HEADER,
} from "./reconciled-report.js";
import { walkPages } from "./walk-pages.js";

export interface ReconcileOptions {
  /** The provider's API, with the account's API token (`createClient`). */
  client: Client;
  /** SMS delivery reports from the Pull DLR API (default), or call reports from the call-status API. */
  kind?: "delivery" | "call";
  /** The day to pull, yyyy-mm-dd. Default: yesterday in `timeZone`, unless another filter is given. */
  date?: string;
  /** One message (or call) by its id. */
  id?: string;
  /** Your custom id. */
  cid?: string;
  mobile?: string;
  /** A message group (SMS only). */
  groupId?: string;
  /** The provider's zone, for the default day. Default `PROVIDER_TIME_ZONE` (Asia/Kolkata). */
  timeZone?: string;
  /** The receiver's URL, as the webhook's `uri`. Required unless `dryRun`. */
  to?: string;
  /** The webhook's secret, sent as `Authorization: Bearer <secret>`. Required unless `dryRun`. */
  secret?: string;
  /** Send the secret as this header's whole value instead (a custom credential header). */
  header?: string;
  /** Reports sent at once. Default 4. */
  concurrency?: number;
  /** Give up on one report's request after this many ms (redirects included). Default 10000. */
  timeoutMs?: number;
  /** Pull and count, send nothing. */
  dryRun?: boolean;
  /** For the pushes; default the global fetch. */
  fetch?: typeof globalThis.fetch;
  /** Told of each record as it is settled. */
  onRecord?: (event: ReconcileEvent) => void;
  /** "Now", for the default day. */
  now?: Date;
}

export type ReconcileOutcome =
  | "pending"
  | "would-send"
  | "processed"
  | "duplicate"
  | "queued"
  | "failed";

export interface ReconcileEvent {
  /** The message id, or the call's id (its report's `mid`). */
  id: string;
  status: string;
  outcome: ReconcileOutcome;
  /** The receiver's HTTP status (null when it did not answer); absent when nothing was sent. */
  httpStatus?: number | null;
  /** Why it failed: the status and the reply's first 200 characters, or the network error. */
  reason?: string;
}

export interface ReconcileSummary {
  kind: "delivery" | "call";
  /** What was asked of the pull API, as sent (e.g. { date: "2024-06-24" }). */
  query: Record<string, string>;
  dryRun: boolean;
  /** False when the pull stopped before its last page (see ReconcileIncompleteError). */
  complete: boolean;
  /** Requests made to the pull API (pages). */
  pages: number;
  /** Records the pull API returned. */
  pulled: number;
  /** Not final yet (AWAITING-DLR and the like, or a call not ended): not sent. */
  pending: number;
  /** Final ones: sent, or with `dryRun` those that would be. */
  final: number;
  /** The receiver ran its handler (200 or 202, not a duplicate). */
  processed: number;
  /** The receiver had it already (`{"ok":true,"duplicate":true}`). */
  duplicate: number;
  /** Queue mode: stored for a worker (`{"ok":true,"queued":true}`, 202). */
  queued: number;
  /** Not answered 200 or 202: listed in `failures`. */
  failed: number;
  failures: { id: string; status: string; httpStatus: number | null; reason: string }[];
}

/** The pull stopped on a failed page after reports were sent; `summary` says what was done. */
export class ReconcileIncompleteError extends ClientError {
  override name = "ReconcileIncompleteError";
  readonly summary: ReconcileSummary;

  constructor(summary: ReconcileSummary, cause: unknown) {
    const said = cause instanceof Error ? cause.message : String(cause);
    super(
      cause instanceof ClientError ? cause.request : "reconcile",
      `${said.replace(/\.?$/, ".")} The pull stopped after ${summary.pages} page${summary.pages === 1 ? "" : "s"}; ${summary.processed + summary.duplicate + summary.queued + summary.failed} reports were sent. Run it again to finish: what was already recorded comes back as a duplicate.`,
      { cause },
    );
    this.summary = summary;
  }
}

/**
 * Pulls a day (or one message, a custom id, a mobile, a group) from the provider's pull API and
 * sends every record with a final status to the receiver as the provider would have pushed it,
 * through the receiver's own dedupe: a report it processed already is answered as a duplicate,
 * one it never got is processed. Records not final yet are counted `pending` and not sent.
 * Each request carries `x-reportkit-reconciled: sms/status` (or `outgoing/callstatus`).
 *
 * @throws TypeError for wrong options, before anything is pulled
 * @throws ClientError when the pull fails before anything was sent (a wrong API token, an
 *   unreachable API): nothing was sent
 * @throws ReconcileIncompleteError when a later page fails after reports were sent
 * @example
 * const client = createClient({ baseUrl, token: process.env.REPORTKIT_API_TOKEN! });
 * const summary = await reconcile({ client, to: "https://my.app/webhooks", secret });
 * if (summary.failed > 0) console.error(summary.failures);
 */
export async function reconcile(options: ReconcileOptions): Promise<ReconcileSummary> {
  const plan = checkOptions(options);
  const { kind } = plan;
  const summary: ReconcileSummary = {
    kind,
    query: plan.query,
    dryRun: plan.dryRun,
    complete: false,
    pages: 0,
    pulled: 0,
    pending: 0,
    final: 0,
    processed: 0,
    duplicate: 0,
    queued: 0,
    failed: 0,
    failures: [],
  };
  const tell = (event: ReconcileEvent) => options.onRecord?.(event);
  const settle = (report: Settled, verdict: PushVerdict) => {
    summary[verdict.kind] += 1;
    if (verdict.kind === "failed") {
      // The pusher redacted the secret from the reason, also when the receiver echoed it.
      const { reason } = verdict;
      summary.failures.push({ ...report, httpStatus: verdict.status, reason });
      tell({ ...report, outcome: "failed", httpStatus: verdict.status, reason });
    } else tell({ ...report, outcome: verdict.kind, httpStatus: verdict.status });
  };

  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  try {
    for await (const pulled of records(plan, () => summary.pages++)) {
      summary.pulled += 1;
      const { id, status, report } = pulled;
      if (report === undefined) {
        summary.pending += 1;
        tell({ id, status, outcome: "pending" });
        continue;
      }
      summary.final += 1;
      if (plan.dryRun) {
        tell({ id, status, outcome: "would-send" });
        continue;
      }
      sent += 1;
      const task = (plan.push as ReportPusher)({
        url: plan.target as URL,
        contentType: "application/json",
        body: JSON.stringify(report),
      }).then((verdict) => settle({ id, status }, verdict));
      inFlight.add(task);
      const done = () => inFlight.delete(task);
      task.then(done, done);
      if (inFlight.size >= plan.concurrency) await Promise.race(inFlight);
    }
  } catch (error) {
    await Promise.all(inFlight);
    if (sent === 0) throw error;
    throw new ReconcileIncompleteError(summary, error);
  }
  await Promise.all(inFlight);
  summary.complete = true;
  return summary;
}

interface Settled {
  id: string;
  status: string;
}

interface Pulled extends Settled {
  /** The report to send; undefined while the record is not final. */
  report: PushedReport | undefined;
}

/** The pulled records, each with its report when final; `onPage` is told of each request. */
async function* records(plan: Plan, onPage: () => void): AsyncGenerator<Pulled> {
  const { client, filter } = plan;
  if (plan.kind === "delivery") {
    const walk = walkPages("GET sms/status", (page) => {
      onPage();
      return client.dlr.list({ ...(filter as DlrQuery), page });
    });
    for await (const record of walk) {
      // wire's status table decides: every status the provider documents is final.
      const final = classifyDeliveryStatus(record.status).final;
      yield {
        id: record.id,
        status: record.status,
        report: final ? deliveryReportOf(record) : undefined,
      };
    }
    return;
  }
  const walk = walkPages("GET outgoing/callstatus", (page) => {
    onPage();
    return client.calls.list({ ...(filter as CallStatusQuery), page });
  });
  for await (const record of walk) {
    const ended = callHasEnded(record);
    yield {
      id: record.id,
      status: record.status,
      report: ended ? callReportOf(record) : undefined,
    };
  }
}

interface Plan {
  client: Client;
  kind: "delivery" | "call";
  /** The client's filter (groupId, not group_id). */
  filter: Record<string, string>;
  /** As sent to the API. */
  query: Record<string, string>;
  dryRun: boolean;
  target: URL | undefined;
  concurrency: number;
  /** Undefined for a dry run without a secret: nothing is sent then. */
  push: ReportPusher | undefined;
}

/** @throws TypeError naming the first wrong option */
function checkOptions(options: ReconcileOptions): Plan {
  const fail = (text: string): never => {
    throw new TypeError(`reportkit reconcile: ${text}`);
  };
  if (typeof options !== "object" || options === null)
    fail("reconcile(options) needs { client, to, secret }.");
  const { client } = options;
  if (typeof client?.dlr?.list !== "function")
    fail("`client` must be a client from createClient({ baseUrl, token }).");
  const kind = options.kind ?? "delivery";
  if (kind !== "delivery" && kind !== "call")
    fail(`\`kind\` must be "delivery" or "call", got ${JSON.stringify(kind)}.`);
  if (kind === "call" && options.groupId !== undefined)
    fail("the call-status API has no group filter: give date, id, cid or mobile.");
  const filter: Record<string, string> = {};
  for (const name of ["date", "id", "cid", "mobile", "groupId"] as const) {
    const value = options[name];
    if (value !== undefined) filter[name] = value;
  }
  if (Object.keys(filter).length === 0) {
    filter.date = providerDay(
      options.now ?? new Date(),
      options.timeZone ?? PROVIDER_TIME_ZONE,
      -1,
    );
  }
  const query = Object.fromEntries(
    Object.entries(filter).map(([name, value]) => [name === "groupId" ? "group_id" : name, value]),
  );
  const dryRun = options.dryRun === true;
  let target: URL | undefined;
  if (options.to !== undefined || !dryRun) {
    try {
      target = new URL(String(options.to));
    } catch {
      fail("`to` must be the receiver's absolute URL, e.g. https://my.app/webhooks.");
    }
    if (target?.protocol !== "http:" && target?.protocol !== "https:")
      fail("`to` must be an http or https URL.");
  }
  const { secret, header } = options;
  if (
    secret !== undefined &&
    (typeof secret !== "string" || secret === "" || /[\r\n]/.test(secret))
  ) {
    fail("`secret` must be the webhook's secret, one line.");
  }
  if (secret === undefined && !dryRun) {
    fail(
      "`secret` is required: the webhook's secret, which the receiver checks (sent as Authorization: Bearer).",
    );
  }
  if (header !== undefined && (typeof header !== "string" || !isHeaderName(header))) {
    fail(`\`header\` must be a header name such as "x-api-key", got ${JSON.stringify(header)}.`);
  }
  const concurrency = options.concurrency ?? 4;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1)
    fail(`\`concurrency\` must be a whole number from 1, got ${String(concurrency)}.`);
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2 ** 31 - 1)
    fail("`timeoutMs` must be a whole number of ms from 1.");
  const push =
    secret === undefined
      ? undefined
      : reportPusher({
          secret,
          header,
          headers: {
            "user-agent": "reportkit-reconcile",
            [RECONCILED_HEADER]: kind === "delivery" ? "sms/status" : "outgoing/callstatus",
          },
          timeoutMs,
          ...(options.fetch && { fetch: options.fetch }),
        });
  return { client, kind, filter, query, dryRun, target, concurrency, push };
}
