import { FieldCheck } from "./field-errors.js";
import type { PushRequest } from "./push-request.js";
import { CALL_VARIABLE_NAMES, DELIVERY_VARIABLE_NAMES } from "./reports.js";

/**
 * A composed webhook (provider-interface.md 6.3): the customer's own callback URL, method,
 * headers, body keys and body format, with {{variable}} placeholders the pusher fills in.
 */
export interface ComposedTemplate {
  /** Which report the webhook carries: a template has no discriminator of its own. */
  type: "delivery" | "call";
  /** Default "POST". */
  method?: "GET" | "POST" | "PUT";
  /** Callback URL; placeholders may appear in the path and the query (URL-encoded when filled). */
  url: string;
  /** Body keys of the customer's choosing, each value one {{variable}}. Not allowed with GET. */
  body?: Record<string, string>;
  /**
   * "json" (default), "form" (multipart/form-data, what such platforms usually send as
   * FormData) or "urlencoded" (application/x-www-form-urlencoded, which some send instead).
   */
  format?: "json" | "form" | "urlencoded";
  /** Extra headers, e.g. an Authorization or x-api-key; {{variables}} are filled in here too. */
  headers?: Record<string, string>;
}

/** A template with every default applied. */
export type ResolvedTemplate = Required<Omit<ComposedTemplate, "body" | "headers">> &
  Pick<ComposedTemplate, "body" | "headers">;

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const EXACTLY_ONE = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const ORIGIN = /^https?:\/\/[^/?#]*/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const METHODS = ["GET", "POST", "PUT"];
const FORMATS = ["json", "form", "urlencoded"];

/**
 * Checks a template as the provider's panel would, naming the variables a report type has.
 * @throws FieldErrors naming each problem
 */
export function resolveTemplate(input: Record<string, unknown>): ResolvedTemplate {
  const check = new FieldCheck();
  const { type, url, body, headers } = input;
  if (type !== "delivery" && type !== "call") {
    check.add("type", 'The type field must be "delivery" or "call".');
  }
  const names = type === "call" ? CALL_VARIABLE_NAMES : DELIVERY_VARIABLE_NAMES;
  const known = (where: string, text: string) => {
    for (const match of text.matchAll(PLACEHOLDER)) {
      const name = match[1] as string;
      if (!names.includes(name)) {
        check.add(
          where,
          `The ${where} field uses {{${name}}}, which a ${String(type)} report does not have; use one of ${names.map((n) => `{{${n}}}`).join(", ")}.`,
        );
      }
    }
  };

  const method = input.method === undefined ? "POST" : String(input.method).toUpperCase();
  if (!METHODS.includes(method)) check.add("method", "The method field must be GET, POST or PUT.");
  const format = input.format === undefined ? "json" : String(input.format).toLowerCase();
  if (!FORMATS.includes(format)) {
    check.add("format", 'The format field must be "json", "form" or "urlencoded".');
  }

  if (typeof url !== "string" || url.trim() === "") {
    check.add("url", "The url field is required.");
  } else {
    const origin = ORIGIN.exec(url.trim());
    if (origin === null) check.add("url", "The url field must be an http or https URL.");
    else if (origin[0].includes("{{")) {
      check.add("url", "The url field may have {{variables}} only in its path and query.");
    } else {
      known("url", url);
      try {
        new URL(url.replace(PLACEHOLDER, "x"));
      } catch {
        check.add("url", "The url field must be a valid URL.");
      }
    }
  }

  if (body !== undefined && body !== null) {
    if (typeof body !== "object" || Array.isArray(body)) {
      check.add("body", 'The body field must be an object of key: "{{variable}}" pairs.');
    } else if (method === "GET" && Object.keys(body).length > 0) {
      check.add("body", "A GET webhook has no body: put its values in the url's query string.");
    } else {
      for (const [key, value] of Object.entries(body)) {
        if (typeof value !== "string" || !EXACTLY_ONE.test(value.trim())) {
          check.add(
            `body.${key}`,
            `The body.${key} field must be exactly one {{variable}}, e.g. "{{id}}".`,
          );
        } else known(`body.${key}`, value);
      }
    }
  }

  if (headers !== undefined && headers !== null) {
    if (typeof headers !== "object" || Array.isArray(headers)) {
      check.add("headers", "The headers field must be an object of header name: value pairs.");
    } else {
      for (const [name, value] of Object.entries(headers)) {
        if (!HEADER_NAME.test(name)) {
          check.add("headers", `The header name "${name}" is not a valid HTTP header name.`);
        } else if (typeof value !== "string" || /[\r\n\0]/.test(value)) {
          check.add(`headers.${name}`, `The headers.${name} field must be a single-line string.`);
        } else known(`headers.${name}`, value);
      }
    }
  }
  check.done();

  const resolved: ResolvedTemplate = {
    type: type as ResolvedTemplate["type"],
    method: method as ResolvedTemplate["method"],
    url: (url as string).trim(),
    format: format as ResolvedTemplate["format"],
  };
  if (body !== undefined && body !== null && Object.keys(body).length > 0) {
    resolved.body = { ...(body as Record<string, string>) };
  }
  if (headers !== undefined && headers !== null) {
    resolved.headers = { ...(headers as Record<string, string>) };
  }
  return resolved;
}

/**
 * The request a composed webhook sends for one report: placeholders filled with the report's
 * values (all strings; URL-encoded in the URL), the body in the template's format, and the
 * template's headers over the default bearer credential.
 */
export async function renderComposed(
  template: ResolvedTemplate,
  variables: Readonly<Record<string, string>>,
  bearer: string | null,
): Promise<PushRequest> {
  const fill = (text: string, encode: (s: string) => string) =>
    text.replace(PLACEHOLDER, (_, name: string) => encode(variables[name] ?? ""));
  const url = fill(template.url, encodeURIComponent);
  const headers: Record<string, string> = { accept: "*/*" };
  if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
  for (const [name, value] of Object.entries(template.headers ?? {})) {
    headers[name.toLowerCase()] = fill(value, (s) => s.replace(/[\r\n\0]/g, ""));
  }
  if (template.method === "GET" || template.body === undefined) {
    return { method: template.method, url, headers };
  }
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(template.body)) fields[key] = fill(value, (s) => s);

  if (template.format === "json") {
    headers["content-type"] = "application/json";
    return { method: template.method, url, headers, body: JSON.stringify(fields) };
  }
  if (template.format === "urlencoded") {
    headers["content-type"] = "application/x-www-form-urlencoded";
    return { method: template.method, url, headers, body: new URLSearchParams(fields).toString() };
  }
  // The platform's fetch serialises FormData as a browser would: same boundary style and parts.
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  const encoded = new Response(form);
  headers["content-type"] = encoded.headers.get("content-type") as string;
  const bytes = new Uint8Array(await encoded.arrayBuffer());
  return { method: template.method, url, headers, body: bytes };
}
