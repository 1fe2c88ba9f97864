import {
  type CallPayload,
  composedValues,
  type DeliveryPayload,
  type ParsedTemplate,
  parseTemplate,
  type ReportType,
  renderUrl,
} from "@reportkit/wire";
import { FieldCheck } from "./field-errors.js";
import type { PushRequest } from "./push-request.js";

// A composed webhook (provider-interface.md 6.3): the customer's own callback URL, method,
// headers, body keys and body format, with {{variable}} placeholders the pusher fills in. The
// grammar is @reportkit/wire's, the one core's receiver reads by: a template the sandbox
// registers is one `createReceiver({ composed })` accepts, and one it refuses is refused here
// with the same problems.
export type { ComposedTemplate } from "@reportkit/wire";

/** A template checked and normalized by the shared grammar: what the sandbox stores. */
export type ResolvedTemplate = ParsedTemplate;

/**
 * Checks a template as the provider's panel would, with the receiver's own grammar.
 * @throws FieldErrors naming each problem by field, with the messages the receiver gives
 * @example
 * resolveTemplate({ type: "call", method: "get", url: "https://example.com/ack?call_id={{id}}&s={{status}}" });
 * // { type: "call", method: "GET", format: "json", url: "https://example.com/ack?...", ... }
 */
export function resolveTemplate(input: Record<string, unknown>): ResolvedTemplate {
  const parsed = parseTemplate(input);
  const check = new FieldCheck();
  if (!parsed.ok) {
    for (const problem of parsed.problems) check.add(problem.field, problem.message);
  }
  // The one rule beyond the grammar: a receiver may be given a bare path, but the sandbox
  // must know where to push.
  const url = typeof input.url === "string" ? input.url.trim() : "";
  const urlRefused = !parsed.ok && parsed.problems.some((p) => p.field === "url");
  if (url !== "" && !urlRefused && !/^https?:\/\//i.test(url)) {
    check.add(
      "url",
      `The url must be an absolute http or https URL for the sandbox to push to, e.g. "http://localhost:3000${url}", got ${JSON.stringify(url)}.`,
    );
  }
  check.done();
  return (parsed as { template: ParsedTemplate }).template;
}

/** The template a parsed one came from, without the parse's own fields: to check it again. */
export function templateOf(parsed: ResolvedTemplate): Record<string, unknown> {
  const { type, method, url, body, format, headers } = parsed;
  return { type, method, url, body, format, headers };
}

/**
 * The value of each {{variable}} for one report, as the provider fills it: every value a
 * string, "" for a field the report does not carry. A composed call webhook always knows its
 * own id, so {{webhook_id}} is filled even when the payload leaves `webhook_id` out.
 */
export function composedValuesOf(
  type: ReportType,
  report: object,
  webhookId: string,
): Record<string, string> {
  const values = composedValues(type, report as DeliveryPayload | CallPayload);
  if (type === "call" && values.webhook_id === "") values.webhook_id = webhookId;
  return values;
}

/**
 * The request a composed webhook sends for one report: placeholders filled with the report's
 * values (URL-encoded in the URL), the body in the template's format, and the template's
 * headers over the default bearer credential.
 */
export async function renderComposed(
  template: ResolvedTemplate,
  values: Readonly<Record<string, string>>,
  bearer: string | null,
): Promise<PushRequest> {
  const url = renderUrl(template, values);
  const headers: Record<string, string> = { accept: "*/*" };
  if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
  for (const [name, value] of Object.entries(template.headers ?? {})) {
    headers[name.toLowerCase()] = value;
  }
  const { method, bodyValues } = template;
  if (method === "GET" || bodyValues.length === 0) return { method, url, headers };
  // fromEntries: a "__proto__" key stays a key.
  const fields: Record<string, string> = Object.fromEntries(
    bodyValues.map(({ key, placeholder }) => [
      key,
      Object.hasOwn(values, placeholder.variable) ? (values[placeholder.variable] as string) : "",
    ]),
  );

  if (template.format === "json") {
    headers["content-type"] = "application/json";
    return { method, url, headers, body: JSON.stringify(fields) };
  }
  if (template.format === "urlencoded") {
    headers["content-type"] = "application/x-www-form-urlencoded";
    return { method, url, headers, body: new URLSearchParams(fields).toString() };
  }
  // The platform's fetch serialises FormData as a browser would: same boundary style and parts.
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  const encoded = new Response(form);
  headers["content-type"] = encoded.headers.get("content-type") as string;
  const bytes = new Uint8Array(await encoded.arrayBuffer());
  return { method, url, headers, body: bytes };
}
