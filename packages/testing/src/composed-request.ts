import { type ComposedTemplate, createReceiver, type ReceiverOptions } from "@reportkit/core";
import {
  CALL_VARIABLES,
  type CallPayload,
  composedValues,
  DELIVERY_VARIABLES,
  type DeliveryPayload,
  parseTemplate,
  renderUrl,
} from "@reportkit/wire";
import { multipartBody } from "./form-body.js";
import { callPayload, deliveryPayload } from "./payloads.js";

/** The variables a template of this type may use. */
export type ComposedVariable<T extends ComposedTemplate> = T["type"] extends "call"
  ? keyof typeof CALL_VARIABLES
  : keyof typeof DELIVERY_VARIABLES;

/** Values for a template's variables; each one left out gets a realistic default. */
export type ComposedValues<T extends ComposedTemplate> = {
  [K in ComposedVariable<T>]?: string | number;
};

/** The request a composed webhook sends: hand it to `sendReport`, or to your own client. */
export interface ComposedRequest {
  method: "GET" | "POST" | "PUT";
  /** The template's URL with the values filled in, URL-encoded. */
  url: string;
  /**
   * Lower-case names: the template's own `headers`, and `content-type` when there is a body.
   * No bearer credential: `sendReport` adds it.
   */
  headers: Record<string, string>;
  /** Absent for GET and for a template without body keys. */
  body?: string;
  /** Every variable's value as sent (all strings, as the provider sends them). */
  values: Record<string, string>;
}

/** Marks a ComposedRequest, so that `sendReport` sends it as it is rather than as a payload. */
export const COMPOSED_REQUEST: unique symbol = Symbol.for("@reportkit/testing.composed-request");

export function isComposedRequest(value: unknown): value is ComposedRequest {
  return typeof value === "object" && value !== null && COMPOSED_REQUEST in value;
}

/** The provider writes wall-clock times in Asia/Kolkata (UTC+05:30, no daylight saving). */
function unixOf(wallClock: string): string {
  return String(Date.parse(`${wallClock.replace(" ", "T")}+05:30`) / 1000);
}

/** Every variable's value for a realistic report of this type, as the provider fills them. */
function defaultValues(type: "delivery" | "call"): Record<string, string> {
  if (type === "delivery") {
    const dlr = deliveryPayload();
    const complete: DeliveryPayload = {
      ...dlr,
      deliv_at: unixOf(dlr.deliv_time),
      sent_at: unixOf(dlr.sent_time),
      submit_at: unixOf(dlr.submit_time),
    };
    return composedValues("delivery", complete);
  }
  const complete: CallPayload = { ...callPayload(), webhook_id: crypto.randomUUID() };
  return composedValues("call", complete);
}

/**
 * The request a composed webhook sends for one report, built from the same template you give
 * the receiver (`composed` option): the template's method, its URL with the values filled in
 * (URL-encoded), and its body keys in the template's format. Every value is a string, as the
 * provider sends them; a variable you give no value gets a realistic default. The template is
 * checked by the receiver's own check, so a template the receiver refuses throws here too.
 *
 * @example
 * const template = {
 *   type: "call",
 *   method: "GET",
 *   url: "https://example.com/ack/receive?call_id={{id}}&to={{to}}&message_status={{status}}",
 * } as const;
 * const request = composedRequest(template, { status: "BUSY" });
 * // { method: "GET", url: "https://example.com/ack/receive?call_id=…&to=919876543210&message_status=BUSY", … }
 * await sendReport(app, request, { secret: "test-secret" });
 */
export function composedRequest<const T extends ComposedTemplate>(
  template: T,
  values: ComposedValues<T> = {},
): ComposedRequest {
  // The receiver's own check first, so a template it refuses throws the same
  // ComposedTemplateError here; then the grammar's normalized form (method, format).
  createReceiver({
    secret: false,
    dedupe: false,
    composed: template,
    onDelivery: () => undefined,
    onCall: () => undefined,
  } as ReceiverOptions<ComposedTemplate>);
  const parsed = parseTemplate(template);
  if (!parsed.ok) {
    const problems = parsed.problems.map((p) => `${p.field}: ${p.message}`).join("; ");
    throw new TypeError(`composedRequest: the template is refused: ${problems}`);
  }
  const { type, method, format, bodyValues } = parsed.template;

  const known = Object.keys(type === "call" ? CALL_VARIABLES : DELIVERY_VARIABLES);
  const filled = defaultValues(type);
  for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
    if (!known.includes(name)) {
      throw new TypeError(
        `composedRequest: a ${type} template has no variable "${name}"; use one of ${known.join(", ")}.`,
      );
    }
    if (value !== undefined) filled[name] = String(value);
  }
  // A call's {{id}} is its mid: given one, the other follows.
  if (type === "call") {
    const given = values as { id?: unknown; mid?: unknown };
    if (given.id !== undefined && given.mid === undefined) filled.mid = filled.id as string;
    if (given.mid !== undefined && given.id === undefined) filled.id = filled.mid as string;
  }

  const request: ComposedRequest = {
    method,
    url: renderUrl(parsed.template, filled),
    headers: {},
    values: { ...filled },
  };
  Object.defineProperty(request, COMPOSED_REQUEST, { value: true });
  for (const [name, value] of Object.entries(parsed.template.headers ?? {})) {
    request.headers[name.toLowerCase()] = value;
  }

  if (method === "GET" || bodyValues.length === 0) return request;
  const fields = bodyValues.map(
    ({ key, placeholder: { variable, prefix, suffix } }) =>
      [key, `${prefix}${filled[variable] ?? ""}${suffix}`] as const,
  );
  if (format === "json") {
    request.headers["content-type"] = "application/json";
    request.body = JSON.stringify(Object.fromEntries(fields));
  } else if (format === "urlencoded") {
    request.headers["content-type"] = "application/x-www-form-urlencoded";
    request.body = new URLSearchParams(fields.map(([k, v]) => [k, v])).toString();
  } else {
    ({ body: request.body, type: request.headers["content-type"] } = multipartBody(fields));
  }
  return request;
}
