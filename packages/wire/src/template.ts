import type { ReportType } from "./payloads.js";
import { IDENTITY_VARIABLES, variablesOf } from "./variables.js";

// The grammar of a composed webhook (provider-interface.md 6.3 and 2.6, field-notes.md), in
// one place: core's compiler reads requests by it, the sandbox renders requests by it, and
// both refuse the same templates with the same problems.

/** The fields of a template; any other key is refused (a typo would silently change its meaning). */
export const TEMPLATE_FIELDS = ["type", "method", "url", "body", "format", "headers"] as const;

export const TEMPLATE_METHODS = ["GET", "POST", "PUT"] as const;
export type TemplateMethod = (typeof TEMPLATE_METHODS)[number];

/**
 * "json"; "form", FormData as the panel calls it, which such platforms send as
 * multipart/form-data; "urlencoded", application/x-www-form-urlencoded, which some send
 * instead. A receiver reads a body by its Content-Type, so "form" and "urlencoded" read alike.
 */
export const TEMPLATE_FORMATS = ["json", "form", "urlencoded"] as const;
export type TemplateFormat = (typeof TEMPLATE_FORMATS)[number];

/**
 * A composed webhook as the customer entered it in the provider's panel.
 * @example
 * const template = {
 *   type: "call",
 *   method: "GET",
 *   url: "https://example.com/ack/receive?call_id={{id}}&to={{to}}&message_status={{status}}",
 * } satisfies ComposedTemplate;
 */
export interface ComposedTemplate {
  /** A template carries no discriminator, so the kind of report is stated here. */
  readonly type: ReportType;
  /** Default "POST"; any case ("post" is POST). */
  readonly method?: TemplateMethod | Lowercase<TemplateMethod>;
  /**
   * The callback URL ("https://..." or a path starting with "/"), with {{variable}}
   * placeholders in the path or the query: one per path segment or query value, with literal
   * text around it if you like ("/m-{{mobile}}", "?ref=dlr-{{id}}").
   */
  readonly url: string;
  /** Body keys of the customer's choosing, each value exactly one {{variable}}. Not with GET. */
  readonly body?: Readonly<Record<string, string>>;
  /** Default "json". */
  readonly format?: TemplateFormat;
  /** Headers the provider sends as written, e.g. an x-api-key. No {{variables}} here (2.6). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** One thing wrong with a template: the field it is in, and what to do about it. */
export interface TemplateProblem {
  /** "type", "method", "format", "url", "body", "body.<key>", "headers" or "headers.<name>". */
  readonly field: string;
  readonly message: string;
}

/** A {{variable}} where the template puts it, with the literal text around it (decoded). */
export interface Placeholder {
  readonly variable: string;
  /** The wire field it carries (the variable tables). */
  readonly field: string;
  readonly prefix: string;
  readonly suffix: string;
}

export type PathSegment =
  | { readonly kind: "literal" /** Decoded. */; readonly text: string }
  | { readonly kind: "placeholder"; readonly placeholder: Placeholder };

/** A query parameter that carries a variable; literal parameters are not read. */
export interface QueryParameter {
  /** Decoded. */
  readonly key: string;
  readonly placeholder: Placeholder;
}

export interface BodyValue {
  readonly key: string;
  readonly placeholder: Placeholder;
}

/** A template that passed every check, normalized, with where each variable stands. */
export interface ParsedTemplate extends ComposedTemplate {
  readonly method: TemplateMethod;
  readonly format: TemplateFormat;
  /** Trimmed. */
  readonly url: string;
  /** The URL's path as written ("" for "https://host" alone). */
  readonly path: string;
  /** The path's segments, without the empty ones a leading or trailing "/" makes. */
  readonly segments: readonly PathSegment[];
  readonly query: readonly QueryParameter[];
  readonly bodyValues: readonly BodyValue[];
  /** Every variable the URL and body use, once, in order. */
  readonly variables: readonly string[];
}

export type TemplateParse =
  | { readonly ok: true; readonly template: ParsedTemplate }
  | { readonly ok: false; readonly problems: readonly TemplateProblem[] };

/** Headers the sender writes itself from the method and body: a template setting them breaks the push. */
const SENDER_HEADERS = [
  "content-type",
  "content-length",
  "transfer-encoding",
  "host",
  "connection",
];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const EXACTLY_ONE = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const ORIGIN = /^https?:\/\/[^/?#]*/i;
const EXAMPLE_URL = '"https://example.com/dlr?id={{id}}&state={{status}}"';

/** Each {{variable}} in a text, with its name trimmed. A fresh regex: no shared lastIndex. */
function placeholdersIn(text: string): RegExpExecArray[] {
  return [...text.matchAll(/\{\{\s*([^{}]*?)\s*\}\}/g)];
}

/**
 * Checks a composed template and normalizes it: method upper-case (default POST), format
 * lower-case (default json), the URL trimmed, and where each variable stands. Every problem
 * is reported, not only the first.
 * @example
 * const parsed = parseTemplate({ type: "delivery", method: "get", url: "/dlr?ref=dlr-{{id}}&s={{status}}" });
 * if (parsed.ok) parsed.template.query; // [{ key: "ref", placeholder: { variable: "id", prefix: "dlr-", ... } }, ...]
 * else parsed.problems; // [{ field: "url", message: "..." }]
 */
export function parseTemplate(input: unknown): TemplateParse {
  if (!isRecord(input)) {
    return {
      ok: false,
      problems: [
        {
          field: "template",
          message: `A composed template must be an object like { type, method, url, body, format, headers }, got ${describe(input)}.`,
        },
      ],
    };
  }
  const problems: TemplateProblem[] = [];
  const add = (field: string, message: string) => problems.push({ field, message });

  for (const key of Object.keys(input)) {
    if ((TEMPLATE_FIELDS as readonly string[]).includes(key)) continue;
    const near = TEMPLATE_FIELDS.find((field) => similar(field, key));
    add(
      key,
      `Unknown template field ${JSON.stringify(key.slice(0, 64))}${near === undefined ? "" : ` (did you mean "${near}"?)`}: a composed template has ${listOf(
        TEMPLATE_FIELDS.map((f) => `"${f}"`),
        "and",
      )}.`,
    );
  }

  const type = input.type === "delivery" || input.type === "call" ? input.type : undefined;
  if (type === undefined) {
    add(
      "type",
      `The type must be "delivery" (SMS delivery reports) or "call" (call reports), got ${describe(input.type)}: a template carries no discriminator, so it must say which report it sends.`,
    );
  }
  const method = choice(input.method, TEMPLATE_METHODS, "POST", (s) => s.toUpperCase());
  if (method === undefined) {
    add("method", `The method must be GET, POST or PUT (any case), got ${describe(input.method)}.`);
  }
  const format = choice(input.format, TEMPLATE_FORMATS, "json", (s) => s.toLowerCase());
  if (format === undefined) {
    add(
      "format",
      `The format must be "json", "form" (multipart/form-data) or "urlencoded" (application/x-www-form-urlencoded), got ${describe(input.format)}.`,
    );
  }

  const table = type === undefined ? undefined : variablesOf(type);
  /** The placeholder for a variable, or a problem naming the variables there are. */
  const placeholder = (
    found: RegExpExecArray,
    text: string,
    field: string,
    where: string,
  ): Placeholder | undefined => {
    const variable = found[1] as string;
    if (table === undefined) return undefined;
    const wire = table[variable];
    if (wire === undefined || !Object.hasOwn(table, variable)) {
      add(
        field,
        `Unknown variable {{${variable}}} in ${where}: a ${type} report has ${Object.keys(table)
          .map((v) => `{{${v}}}`)
          .join(", ")}.`,
      );
      return undefined;
    }
    const start = found.index;
    return {
      variable,
      field: wire,
      prefix: text.slice(0, start),
      suffix: text.slice(start + (found[0] as string).length),
    };
  };

  const before = problems.length;
  let url: ParsedUrl | undefined;
  if (typeof input.url !== "string" || input.url.trim() === "") {
    add(
      "url",
      `The url is required: the callback URL entered in the panel, e.g. ${EXAMPLE_URL}; got ${describe(input.url)}.`,
    );
  } else {
    url = parseUrl(input.url.trim(), add, placeholder);
  }

  const bodyValues: BodyValue[] = [];
  let body: [string, string][] | undefined;
  if (input.body !== undefined && input.body !== null) {
    if (!isRecord(input.body)) {
      add(
        "body",
        `The body must be an object of key: "{{variable}}" pairs, e.g. { "msg_id": "{{id}}" }, got ${describe(input.body)}.`,
      );
    } else {
      const entries = Object.entries(input.body);
      if (entries.length > 0 && method === "GET") {
        add(
          "body",
          'A GET webhook has no body: move its values into the url\'s query string ("?state={{status}}"), or use POST or PUT.',
        );
      } else if (entries.length > 0) {
        body = [];
        for (const [key, value] of entries) {
          body.push([key, value as string]);
          if (key.trim() === "") {
            add("body", 'A body key is empty: name each value, e.g. { "msg_id": "{{id}}" }.');
            continue;
          }
          const one = typeof value === "string" ? EXACTLY_ONE.exec(value.trim()) : null;
          if (one === null) {
            add(
              `body.${key}`,
              `Body key "${key}" must be exactly one {{variable}} and nothing else, e.g. "{{status}}"; got ${describe(value)}.`,
            );
            continue;
          }
          const found = placeholder(one, "", `body.${key}`, `body key "${key}"`);
          if (found !== undefined) {
            bodyValues.push({ key, placeholder: { ...found, prefix: "", suffix: "" } });
          }
        }
      }
    }
  }

  let headers: [string, string][] | undefined;
  if (input.headers !== undefined && input.headers !== null) {
    if (!isRecord(input.headers)) {
      add(
        "headers",
        `The headers must be an object of name: value pairs, e.g. { "x-api-key": "..." }, got ${describe(input.headers)}.`,
      );
    } else {
      const seen = new Map<string, string>();
      for (const [name, value] of Object.entries(input.headers)) {
        headers ??= [];
        headers.push([name, value as string]);
        const lower = name.toLowerCase();
        if (!HEADER_NAME.test(name)) {
          add(
            "headers",
            `The header name ${JSON.stringify(name)} is not a valid HTTP header name: use letters, digits and "-", e.g. "x-api-key".`,
          );
        } else if (SENDER_HEADERS.includes(lower)) {
          add(
            `headers.${name}`,
            `The header ${name} is written by the sender from the method and the format; remove it from the template.`,
          );
        } else if (seen.has(lower)) {
          add(
            `headers.${name}`,
            `The headers ${JSON.stringify(seen.get(lower))} and ${JSON.stringify(name)} are the same header (names ignore case): give it once.`,
          );
        } else if (typeof value !== "string" || /[\r\n\0]/.test(value)) {
          add(
            `headers.${name}`,
            `The header ${name} must be a single-line string, got ${describe(value)}.`,
          );
        } else if (/\{\{|\}\}/.test(value)) {
          add(
            `headers.${name}`,
            `The header ${name} holds a {{variable}}: variables stand in the url and in body values only (provider-interface.md 2.6); write the header's value as is.`,
          );
        }
        seen.set(lower, name);
      }
    }
  }

  const variables = [
    ...new Set(
      [
        ...(url?.segments ?? []).flatMap((s) => (s.kind === "placeholder" ? [s.placeholder] : [])),
        ...(url?.query ?? []).map((q) => q.placeholder),
        ...bodyValues.map((b) => b.placeholder),
      ].map((p) => p.variable),
    ),
  ];
  // Identity is judged only once the URL and body are clean: a variable in a value refused
  // for its form would otherwise be reported missing too, a second and misleading problem.
  const urlAndBodyClean = problems
    .slice(before)
    .every((p) => p.field !== "url" && p.field !== "body" && !p.field.startsWith("body."));
  if (type !== undefined && url !== undefined && urlAndBodyClean) {
    const where = bodyValues.length > 0 ? "body" : "url";
    const { all, anyOf } = IDENTITY_VARIABLES[type] as {
      all: readonly string[];
      anyOf: readonly string[];
    };
    for (const variable of all) {
      if (!variables.includes(variable)) {
        add(
          where,
          `A ${type} template must carry {{${variable}}} in its url or a body value: without it a report cannot be identified, and the receiver refuses it.`,
        );
      }
    }
    if (anyOf.length > 0 && !anyOf.some((v) => variables.includes(v))) {
      add(
        where,
        `A ${type} template must carry one of ${listOf(anyOf.map((v) => `{{${v}}}`))} in its url or a body value: without one a report cannot be identified, and the receiver refuses it.`,
      );
    }
  }

  if (problems.length > 0 || url === undefined || type === undefined) {
    return { ok: false, problems };
  }
  const template: ParsedTemplate = {
    type,
    method: method as TemplateMethod,
    format: format as TemplateFormat,
    url: url.text,
    // fromEntries: a "__proto__" key stays a key.
    ...(body === undefined ? {} : { body: Object.fromEntries(body) }),
    ...(headers === undefined ? {} : { headers: Object.fromEntries(headers) }),
    path: url.path,
    segments: url.segments,
    query: url.query,
    bodyValues,
    variables,
  };
  return { ok: true, template };
}

interface ParsedUrl {
  text: string;
  path: string;
  segments: PathSegment[];
  query: QueryParameter[];
}

type PlaceholderOf = (
  found: RegExpExecArray,
  text: string,
  field: string,
  where: string,
) => Placeholder | undefined;

/** The URL's path and query, checked; undefined when its shape is wrong as a whole. */
function parseUrl(
  text: string,
  add: (field: string, message: string) => void,
  placeholder: PlaceholderOf,
): ParsedUrl | undefined {
  const origin = ORIGIN.exec(text)?.[0] ?? "";
  if (origin === "" && (!text.startsWith("/") || text.startsWith("//"))) {
    add(
      "url",
      `The url must be an http or https URL (${EXAMPLE_URL}) or a path starting with "/", got ${JSON.stringify(text)}.`,
    );
    return undefined;
  }
  if (/\{\{|\}\}/.test(origin)) {
    add(
      "url",
      `The url has a {{variable}} in its host (${JSON.stringify(origin)}): variables stand in the path and the query only.`,
    );
    return undefined;
  }
  if (/\{\{|\}\}/.test(text.replace(/\{\{\s*[^{}]*?\s*\}\}/g, ""))) {
    add(
      "url",
      `The url has unbalanced braces in ${JSON.stringify(text)}: write each variable as {{name}}.`,
    );
    return undefined;
  }
  const rest = text.slice(origin.length);
  const hash = rest.indexOf("#");
  if (hash !== -1 && rest.slice(hash).includes("{{")) {
    add(
      "url",
      `The url has a {{variable}} after "#": a #fragment never reaches the receiver; move it into the path or the query.`,
    );
    return undefined;
  }
  try {
    new URL(text.replace(/\{\{\s*[^{}]*?\s*\}\}/g, "x"), "http://template.invalid");
  } catch {
    add(
      "url",
      `The url ${JSON.stringify(text)} is not a valid URL once its {{variables}} are filled in.`,
    );
    return undefined;
  }
  const beforeHash = hash === -1 ? rest : rest.slice(0, hash);
  const q = beforeHash.indexOf("?");
  const path = q === -1 ? beforeHash : beforeHash.slice(0, q);
  const queryText = q === -1 ? "" : beforeHash.slice(q + 1);

  const segments: PathSegment[] = [];
  for (const segment of pathSegments(path)) {
    const found = placeholdersIn(segment);
    if (found.length === 0) {
      segments.push({ kind: "literal", text: safeDecode(segment) });
      continue;
    }
    const where = `the url's path segment ${JSON.stringify(segment)}`;
    if (found.length > 1) {
      add(
        "url",
        `The url's path segment ${JSON.stringify(segment)} has ${found.length} {{variables}}: use one per segment, e.g. "/{{id}}/{{status}}".`,
      );
      continue;
    }
    const one = placeholder(found[0] as RegExpExecArray, segment, "url", where);
    if (one !== undefined) {
      segments.push({
        kind: "placeholder",
        placeholder: { ...one, prefix: safeDecode(one.prefix), suffix: safeDecode(one.suffix) },
      });
    }
  }

  const query: QueryParameter[] = [];
  const keys = new Map<string, number>();
  const parts = queryText === "" ? [] : queryText.split("&");
  for (const part of parts) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const rawKey = eq === -1 ? part : part.slice(0, eq);
    const rawValue = eq === -1 ? "" : part.slice(eq + 1);
    const key = formDecode(rawKey);
    keys.set(key, (keys.get(key) ?? 0) + 1);
    if (rawKey.includes("{{")) {
      add(
        "url",
        `The url's query parameter name ${JSON.stringify(rawKey)} holds a {{variable}}: variables stand in values ("?id={{id}}"), not in names.`,
      );
      continue;
    }
    const found = placeholdersIn(rawValue);
    if (found.length === 0) continue;
    if (found.length > 1) {
      add(
        "url",
        `The url's query parameter "${key}" has ${found.length} {{variables}}: use one per parameter, e.g. "?id={{id}}&state={{status}}".`,
      );
      continue;
    }
    const one = placeholder(
      found[0] as RegExpExecArray,
      rawValue,
      "url",
      `the url's query parameter "${key}"`,
    );
    if (one !== undefined) {
      query.push({
        key,
        placeholder: { ...one, prefix: formDecode(one.prefix), suffix: formDecode(one.suffix) },
      });
    }
  }
  for (const { key } of query) {
    if ((keys.get(key) ?? 0) > 1) {
      add(
        "url",
        `The url's query parameter "${key}" appears ${keys.get(key)} times: a receiver reads one value per name, so give the variable a name of its own.`,
      );
      keys.set(key, 0);
    }
  }
  return { text, path, segments, query };
}

/**
 * The template's URL with each {{variable}} replaced by its value, URL-encoded: what the
 * provider requests. Placeholders stand in the path and the query only, so encoding each
 * value as a URI component is right for every one of them.
 * @example
 * renderUrl(template, { id: "a:1", status: "DELIVRD" }); // "https://example.com/dlr?id=a%3A1&state=DELIVRD"
 */
export function renderUrl(
  template: Pick<ParsedTemplate, "url">,
  values: Readonly<Record<string, string>>,
): string {
  return template.url.replace(/\{\{\s*([^{}]*?)\s*\}\}/g, (_, name: string) =>
    encodeURIComponent(Object.hasOwn(values, name) ? (values[name] as string) : ""),
  );
}

/** Path segments without the empty ones a leading or a trailing "/" makes. */
export function pathSegments(path: string): string[] {
  const segments = path.split("/");
  if (segments[0] === "") segments.shift();
  if (segments.length > 0 && segments[segments.length - 1] === "") segments.pop();
  return segments;
}

/** A path segment decoded; left as is when its escapes are broken. */
export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A query key or value decoded as URLSearchParams does ("+" is a space). */
function formDecode(text: string): string {
  return safeDecode(text.replaceAll("+", " "));
}

function choice<T extends string>(
  value: unknown,
  allowed: readonly T[],
  fallback: T,
  normalize: (s: string) => string,
): T | undefined {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "string") return undefined;
  const normal = normalize(value.trim());
  return (allowed as readonly string[]).includes(normal) ? (normal as T) : undefined;
}

/** A field name mistyped: another case, or at most two letters wrong, missing or extra. */
function similar(field: string, key: string): boolean {
  const a = field;
  const b = key.toLowerCase();
  if (Math.abs(a.length - b.length) > 2) return false;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
    }
    previous = row;
  }
  return (previous[b.length] as number) <= 2;
}

function listOf(items: readonly string[], conjunction: "or" | "and" = "or"): string {
  return items.length < 2
    ? items.join("")
    : `${items.slice(0, -1).join(", ")} ${conjunction} ${items[items.length - 1]}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : String(value);
}

// ---- Types that follow a literal template ---------------------------------------------------

type Trim<S extends string> = S extends ` ${infer R}`
  ? Trim<R>
  : S extends `${infer R} `
    ? Trim<R>
    : S;

type Placeholders<S> = S extends `${string}{{${infer V}}}${infer Rest}`
  ? Trim<V> | Placeholders<Rest>
  : never;

/** The variables a literal template uses, in its URL and body. */
export type TemplateVariables<T extends ComposedTemplate> =
  | Placeholders<T["url"]>
  | (T["body"] extends Readonly<Record<string, infer V>> ? Placeholders<V> : never);
