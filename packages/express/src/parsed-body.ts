import { parseLenientJson } from "@reportkit/core/adapter";

/**
 * A form body some framework parser already turned into an object (Express's urlencoded(),
 * multer, ...), brought back to what core makes of the form itself: one string per key.
 *
 * - Repeated keys that a parser gathered into an array keep their last value, as
 *   URLSearchParams-based decoding does.
 * - Nested objects from bracketed keys (`qs`: `data[st]=x` → `{ data: { st: "x" } }`) are
 *   flattened back to their bracketed keys, which is what a customer's template names.
 * - A JSON report sent with PHP curl's default urlencoded Content-Type comes out of such a parser
 *   as one key holding the JSON text; it is put back together and read as JSON. A `+` in it
 *   was already turned into a space by the parser: lost, but harmless to digits and times.
 */
export function fromParsedForm(parsed: Record<string, unknown>): Record<string, unknown> {
  const form = formOf(parsed);
  return "json" in form ? form.json : Object.fromEntries(form.fields);
}

/** A parsed form: the JSON report a form parser split up, or its fields, one string per key. */
function formOf(
  parsed: Record<string, unknown>,
): { json: Record<string, unknown> } | { fields: [string, string][] } {
  const entries = Object.entries(parsed);
  const json = /^\s*[{[]/.test(entries[0]?.[0] ?? "") ? rejoinedJson(entries) : undefined;
  if (json !== undefined) return { json };
  const fields: [string, string][] = [];
  for (const [key, value] of entries) flatten(key, value, fields);
  return { fields };
}

function rejoinedJson(entries: [string, unknown][]): Record<string, unknown> | undefined {
  const text = entries
    .map(([key, value]) => (value === "" ? key : `${key}=${stringOf(value)}`))
    .join("&");
  try {
    const json = parseLenientJson(text);
    return typeof json === "object" && json !== null
      ? (json as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function flatten(key: string, value: unknown, out: [string, string][]): void {
  if (Array.isArray(value)) {
    if (value.length > 0) flatten(key, value[value.length - 1], out);
  } else if (typeof value === "object" && value !== null) {
    for (const [inner, v] of Object.entries(value)) flatten(`${key}[${inner}]`, v, out);
  } else if (value !== undefined && value !== null) {
    out.push([key, String(value)]);
  }
}

function stringOf(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * What a body parser made of a request (an object from express.json(), express.urlencoded() or
 * multer), as text core reads again, with the Content-Type that says how: JSON as JSON; a form's
 * fields as a urlencoded form (a JSON report a form parser split up, as JSON again).
 */
export function parsedBody(
  value: Record<string, unknown> | readonly unknown[],
  contentType: string | undefined,
): { text: string; contentType: string } {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const isForm = type === "application/x-www-form-urlencoded" || type === "multipart/form-data";
  if (!isForm || Array.isArray(value)) {
    return { text: JSON.stringify(cut(value, 0)), contentType: contentType ?? "application/json" };
  }
  const form = formOf(value as Record<string, unknown>);
  if ("json" in form) return { text: JSON.stringify(form.json), contentType: "application/json" };
  return {
    text: new URLSearchParams(form.fields).toString(),
    contentType: "application/x-www-form-urlencoded",
  };
}

/** How deep a parsed value is written back: core keeps no field of a report nested deeper. */
const MAX_DEPTH = 64;

/**
 * A parsed value with what is nested deeper than MAX_DEPTH replaced by a note saying so:
 * JSON.stringify of 12,000 nested arrays (which express.json() reads) runs out of stack.
 */
function cut(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth >= MAX_DEPTH) return `[reportkit: nested deeper than ${MAX_DEPTH} levels]`;
  if (Array.isArray(value)) return value.map((item) => cut(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // Defined, not assigned: a `__proto__` key stays a key.
    Object.defineProperty(out, key, {
      value: cut(item, depth + 1),
      enumerable: true,
      writable: true,
    });
  }
  return out;
}
