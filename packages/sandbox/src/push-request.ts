import type { PayloadStyle } from "./reports.js";

/** One HTTP request the pusher sends, fully rendered. */
export interface PushRequest {
  method: "GET" | "POST" | "PUT";
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/**
 * The standard push: the report as JSON, POSTed with the webhook's bearer credential. With
 * `payloads: "documented"` the body is written like the documentation's samples, by
 * `documented` (by default one field a line, a trailing comma before the closing brace, which
 * real senders emit, as the delivery and call reports' pages show); with "complete" (the
 * default here) it is strict JSON. Either way it goes with a Content-Length, as PHP's curl
 * and Guzzle send a string body.
 *
 * @example
 * standardPush("https://my.app/reports", report, "token", "documented").body;
 * // '{\n    "id": "…:1",\n    …\n    "cid": "4821",\n}'
 */
export function standardPush(
  url: string,
  report: object,
  bearer: string | null,
  payloads: PayloadStyle = "complete",
  documented: (report: object) => string = documentedJson,
): PushRequest {
  const headers: Record<string, string> = {
    accept: "*/*",
    "content-type": "application/json",
  };
  if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
  const body = payloads === "documented" ? documented(report) : JSON.stringify(report);
  return { method: "POST", url, headers, body };
}

/**
 * A body as the pages without a trailing comma write it (the Click2Call report, the opt-outs,
 * the events): indented JSON, numbers bare.
 */
export function indentedJson(report: object): string {
  return JSON.stringify(report, null, 2);
}

/**
 * A flat object as the documentation's samples write it: four-space indent, one field a line,
 * every line ending in a comma, the last one too. Not valid JSON, on purpose.
 */
export function documentedJson(report: object): string {
  const lines = Object.entries(report)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `    ${JSON.stringify(key)}: ${JSON.stringify(value)},`);
  return `{\n${lines.join("\n")}\n}`;
}
