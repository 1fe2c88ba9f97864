import { type BearerCheck, checkBearer, type TokenOption } from "./check-bearer.js";
import {
  type CompiledTemplate,
  type ComposedCallReport,
  type ComposedDeliveryReport,
  type ComposedTemplate,
  compileTemplate,
} from "./composed.js";
import type { ReportContext } from "./context.js";
import type { BodyFormat } from "./decode-body.js";
import type { ReportkitError } from "./errors.js";
import type { CallReport, DeliveryReport } from "./schemas.js";

export type Handler<R> = (report: R, ctx: ReportContext) => unknown;

/** The report `onDelivery` receives: typed by the template when there is one. */
export type DeliveryReportFor<T> = T extends ComposedTemplate
  ? ComposedDeliveryReport<T>
  : DeliveryReport;
/** The report `onCall` receives: typed by the template when there is one. */
export type CallReportFor<T> = T extends ComposedTemplate ? ComposedCallReport<T> : CallReport;

export interface ReceiverOptions<T extends ComposedTemplate | undefined = undefined> {
  /**
   * The bearer token the provider sends: one string, several (during a rotation), or a
   * function that decides. Required unless `auth: false`.
   */
  token?: TokenOption;
  /** Pass `false` to accept requests without any credential. Not recommended. */
  auth?: false;
  /**
   * A header whose whole value is the token (composed webhooks may send e.g. `x-api-key`),
   * instead of `Authorization: Bearer <token>`.
   */
  header?: string;
  /** Called with each SMS delivery report; the provider gets 200 once it returns/resolves. */
  onDelivery?: T extends { type: "call" } ? never : Handler<DeliveryReportFor<T>>;
  /** Called with each call report; the provider gets 200 once it returns/resolves. */
  onCall?: T extends { type: "delivery" } ? never : Handler<CallReportFor<T>>;
  /** Observes every refused request and failed handler. Cannot change the reply. */
  onError?: (error: ReportkitError, ctx: ReportContext) => unknown;
  /**
   * The composed webhook's template, pasted from the provider's panel: the receiver then reads
   * the customer's own keys from the query, path and body, with the template's method.
   */
  composed?: T;
  /** IANA zone for wall-clock times that carry none. Default "UTC". */
  timeZone?: string;
  /** Largest body accepted, in bytes. Default 65536. */
  maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY_BYTES = 65_536;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

export type Template = CompiledTemplate & { readsBody: boolean; format: BodyFormat };

export interface Config {
  template: Template | undefined;
  check: BearerCheck | undefined;
  credentialHeader: string;
  onDelivery: Handler<DeliveryReport> | undefined;
  onCall: Handler<CallReport> | undefined;
  onError: ReceiverOptions["onError"];
  timeZone: string;
  limit: number;
}

export function validateOptions(options: ReceiverOptions<ComposedTemplate | undefined>): Config {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("reportkit: createReceiver(options) needs an options object.");
  }
  const { token, auth, header, onDelivery, onCall, onError } = options;
  if (auth !== undefined && auth !== false) {
    throw new TypeError("reportkit: `auth` can only be `false` (to turn authentication off).");
  }
  if (auth === false && token !== undefined) {
    throw new TypeError("reportkit: pass either `token` or `auth: false`, not both.");
  }
  if (auth !== false) validateToken(token);
  if (
    header !== undefined &&
    (typeof header !== "string" || !HEADER_NAME.test(header.toLowerCase()))
  ) {
    throw new TypeError(
      `reportkit: \`header\` must be a header name such as "x-api-key", got ${JSON.stringify(header)}.`,
    );
  }
  for (const [name, fn] of [
    ["onDelivery", onDelivery],
    ["onCall", onCall],
    ["onError", onError],
  ] as const) {
    if (fn !== undefined && typeof fn !== "function") {
      throw new TypeError(`reportkit: \`${name}\` must be a function.`);
    }
  }
  if (onDelivery === undefined && onCall === undefined) {
    throw new TypeError(
      "reportkit: give at least one handler, `onDelivery(report)` for SMS delivery reports or `onCall(report)` for call reports.",
    );
  }
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(limit) || limit <= 0) {
    throw new TypeError(
      `reportkit: \`maxBodyBytes\` must be a positive whole number of bytes, got ${String(options.maxBodyBytes)}.`,
    );
  }
  const credentialHeader = header?.toLowerCase() ?? "authorization";
  const compiled = options.composed === undefined ? undefined : compileTemplate(options.composed);
  const handlerFor = compiled?.type === "call" ? onCall : onDelivery;
  if (compiled !== undefined && handlerFor === undefined) {
    const name = compiled.type === "call" ? "onCall" : "onDelivery";
    throw new TypeError(
      `reportkit: the composed template sends ${compiled.type} reports; give \`${name}\`.`,
    );
  }
  return {
    template:
      compiled === undefined
        ? undefined
        : {
            ...compiled,
            readsBody: compiled.method !== "GET" && compiled.sources.some((s) => s.from === "body"),
            format: options.composed?.format === "form" ? "urlencoded" : "json",
          },
    check:
      auth === false
        ? undefined
        : checkBearer(token as TokenOption, header === undefined ? undefined : credentialHeader),
    credentialHeader,
    onDelivery: onDelivery as Handler<DeliveryReport> | undefined,
    onCall: onCall as Handler<CallReport> | undefined,
    onError,
    timeZone: options.timeZone ?? "UTC",
    limit,
  };
}

function validateToken(token: unknown): void {
  const hint =
    "Pass the token the provider sends (`token`, or the REPORTKIT_TOKEN environment variable where the adapter reads it), several during a rotation, or a function; or `auth: false` to accept unauthenticated requests (not recommended).";
  if (token === undefined || token === null) {
    throw new TypeError(`reportkit: no token given. ${hint}`);
  }
  if (typeof token === "function") return;
  const list = typeof token === "string" ? [token] : token;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError(
      `reportkit: \`token\` must be a string, an array of strings or a function. ${hint}`,
    );
  }
  list.forEach((t: unknown, i: number) => {
    if (typeof t !== "string" || t.trim() === "") {
      const where = Array.isArray(token) ? `token[${i}]` : "token";
      throw new TypeError(`reportkit: \`${where}\` is empty or not a string. ${hint}`);
    }
  });
}
