import { isRecord } from "./is-record.js";
import type { ReportType } from "./payloads.js";
import { describe, didYouMean, listOf } from "./problem-text.js";
import {
  type AddProblem,
  EXACTLY_ONE,
  type PlaceholderOf,
  placeholderOf,
} from "./template-placeholders.js";
import {
  type BodyValue,
  type ParsedTemplate,
  TEMPLATE_FIELDS,
  TEMPLATE_FORMATS,
  TEMPLATE_METHODS,
  type TemplateFormat,
  type TemplateMethod,
  type TemplateParse,
  type TemplateProblem,
} from "./template-types.js";
import { EXAMPLE_URL, type ParsedUrl, parseUrl } from "./template-url.js";
import { IDENTITY_VARIABLES } from "./variables.js";

// The grammar of a composed webhook (provider-interface.md 6.3 and 2.6, field-notes.md), in
// one place: core's compiler reads requests by it, the sandbox renders requests by it, and
// both refuse the same templates with the same problems. One function per field; the URL's
// own grammar is template-url.ts.

/** Headers the sender writes itself from the method and body: a template setting them breaks the push. */
const SENDER_HEADERS = [
  "content-type",
  "content-length",
  "transfer-encoding",
  "host",
  "connection",
];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

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
  const add: AddProblem = (field, message) => {
    problems.push({ field, message });
  };

  checkFieldNames(input, add);
  const type = readType(input.type, add);
  const method = readMethod(input.method, add);
  const format = readFormat(input.format, add);
  const placeholder = placeholderOf(type, add);
  const before = problems.length;
  const url = readUrl(input.url, add, placeholder);
  const body = readBody(input.body, method, add, placeholder);
  const headers = readHeaders(input.headers, add);
  const variables = variablesUsed(url, body.values);

  // Identity is judged only once the URL and body are clean: a variable in a value refused
  // for its form would otherwise be reported missing too, a second and misleading problem.
  const urlAndBodyClean = problems
    .slice(before)
    .every((p) => p.field !== "url" && p.field !== "body" && !p.field.startsWith("body."));
  if (type !== undefined && url !== undefined && urlAndBodyClean) {
    checkIdentity(type, variables, body.values.length > 0 ? "body" : "url", add);
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
    ...(body.entries === undefined ? {} : { body: Object.fromEntries(body.entries) }),
    ...(headers === undefined ? {} : { headers: Object.fromEntries(headers) }),
    path: url.path,
    segments: url.segments,
    query: url.query,
    bodyValues: body.values,
    variables,
  };
  return { ok: true, template };
}

/** A key that is no template field is refused, with the field it looks like a typo of. */
function checkFieldNames(input: Record<string, unknown>, add: AddProblem): void {
  for (const key of Object.keys(input)) {
    if ((TEMPLATE_FIELDS as readonly string[]).includes(key)) continue;
    const near = didYouMean(TEMPLATE_FIELDS, key);
    add(
      key,
      `Unknown template field ${JSON.stringify(key.slice(0, 64))}${near === undefined ? "" : ` (did you mean "${near}"?)`}: a composed template has ${listOf(
        TEMPLATE_FIELDS.map((f) => `"${f}"`),
        "and",
      )}.`,
    );
  }
}

function readType(value: unknown, add: AddProblem): ReportType | undefined {
  if (value === "delivery" || value === "call") return value;
  add(
    "type",
    `The type must be "delivery" (SMS delivery reports) or "call" (call reports), got ${describe(value)}: a template carries no discriminator, so it must say which report it sends.`,
  );
  return undefined;
}

function readMethod(value: unknown, add: AddProblem): TemplateMethod | undefined {
  const method = choice(value, TEMPLATE_METHODS, "POST", (s) => s.toUpperCase());
  if (method === undefined) {
    add("method", `The method must be GET, POST or PUT (any case), got ${describe(value)}.`);
  }
  return method;
}

function readFormat(value: unknown, add: AddProblem): TemplateFormat | undefined {
  const format = choice(value, TEMPLATE_FORMATS, "json", (s) => s.toLowerCase());
  if (format === undefined) {
    add(
      "format",
      `The format must be "json", "form" (multipart/form-data) or "urlencoded" (application/x-www-form-urlencoded), got ${describe(value)}.`,
    );
  }
  return format;
}

/** One of `allowed` once normalized, `fallback` when absent, undefined when neither. */
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

function readUrl(value: unknown, add: AddProblem, placeholder: PlaceholderOf) {
  if (typeof value !== "string" || value.trim() === "") {
    add(
      "url",
      `The url is required: the callback URL entered in the panel, e.g. ${EXAMPLE_URL}; got ${describe(value)}.`,
    );
    return undefined;
  }
  return parseUrl(value.trim(), add, placeholder);
}

interface ParsedBody {
  /** The body as written, when it has keys. */
  entries: [string, string][] | undefined;
  values: BodyValue[];
}

/** Each body value must be exactly one {{variable}}; a GET has no body. */
function readBody(
  value: unknown,
  method: TemplateMethod | undefined,
  add: AddProblem,
  placeholder: PlaceholderOf,
): ParsedBody {
  const values: BodyValue[] = [];
  if (value === undefined || value === null) return { entries: undefined, values };
  if (!isRecord(value)) {
    add(
      "body",
      `The body must be an object of key: "{{variable}}" pairs, e.g. { "msg_id": "{{id}}" }, got ${describe(value)}.`,
    );
    return { entries: undefined, values };
  }
  const written = Object.entries(value);
  if (written.length === 0) return { entries: undefined, values };
  if (method === "GET") {
    add(
      "body",
      'A GET webhook has no body: move its values into the url\'s query string ("?state={{status}}"), or use POST or PUT.',
    );
    return { entries: undefined, values };
  }
  const entries: [string, string][] = [];
  for (const [key, text] of written) {
    entries.push([key, text as string]);
    if (key.trim() === "") {
      add("body", 'A body key is empty: name each value, e.g. { "msg_id": "{{id}}" }.');
      continue;
    }
    const one = typeof text === "string" ? EXACTLY_ONE.exec(text.trim()) : null;
    if (one === null) {
      add(
        `body.${key}`,
        `Body key "${key}" must be exactly one {{variable}} and nothing else, e.g. "{{status}}"; got ${describe(text)}.`,
      );
      continue;
    }
    const found = placeholder(one, "", `body.${key}`, `body key "${key}"`);
    if (found !== undefined) {
      values.push({ key, placeholder: { ...found, prefix: "", suffix: "" } });
    }
  }
  return { entries, values };
}

/** Headers are sent as written: valid names, none the sender writes, no variables. */
function readHeaders(value: unknown, add: AddProblem): [string, string][] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) {
    add(
      "headers",
      `The headers must be an object of name: value pairs, e.g. { "x-api-key": "..." }, got ${describe(value)}.`,
    );
    return undefined;
  }
  let headers: [string, string][] | undefined;
  const seen = new Map<string, string>();
  for (const [name, text] of Object.entries(value)) {
    headers ??= [];
    headers.push([name, text as string]);
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
    } else if (typeof text !== "string" || /[\r\n\0]/.test(text)) {
      add(
        `headers.${name}`,
        `The header ${name} must be a single-line string, got ${describe(text)}.`,
      );
    } else if (/\{\{|\}\}/.test(text)) {
      add(
        `headers.${name}`,
        `The header ${name} holds a {{variable}}: variables stand in the url and in body values only (provider-interface.md 2.6); write the header's value as is.`,
      );
    }
    seen.set(lower, name);
  }
  return headers;
}

/** Every variable the URL and the body use, once, in order. */
function variablesUsed(url: ParsedUrl | undefined, bodyValues: readonly BodyValue[]): string[] {
  return [
    ...new Set(
      [
        ...(url?.segments ?? []).flatMap((s) => (s.kind === "placeholder" ? [s.placeholder] : [])),
        ...(url?.query ?? []).map((q) => q.placeholder),
        ...bodyValues.map((b) => b.placeholder),
      ].map((p) => p.variable),
    ),
  ];
}

/** A report the template sends must be identifiable: the variables that say which it is. */
function checkIdentity(
  type: ReportType,
  variables: readonly string[],
  where: "url" | "body",
  add: AddProblem,
): void {
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
