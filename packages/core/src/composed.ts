import { ReportkitError } from "./errors.js";
import type { CallReport, DeliveryReport } from "./schemas.js";

/**
 * A composed webhook as the customer entered it in the provider's panel: reportkit derives
 * from it which query parameter, path segment or body key carries which variable.
 */
export interface ComposedTemplate {
  /** A template carries no discriminator, so the kind of report is stated here. */
  readonly type: "delivery" | "call";
  /** Default "POST". */
  readonly method?: "GET" | "POST" | "PUT";
  /** The callback URL with {{variable}} placeholders in the path or query; scheme and host are ignored. */
  readonly url: string;
  /** Body keys of the customer's choosing, each value exactly one {{variable}}. */
  readonly body?: Readonly<Record<string, string>>;
  /** "json", or "form" (multipart/form-data or application/x-www-form-urlencoded). Default "json". */
  readonly format?: "json" | "form";
}

/** Composed variables of an SMS delivery report (provider-interface.md 2.6), by wire field. */
export const DELIVERY_VARIABLES = {
  id: "id",
  mobile: "mobile",
  status: "status",
  credits: "credits",
  units: "units",
  deliv_time: "deliveredAt",
  sent_time: "sentAt",
  submit_time: "submittedAt",
  deliv_at: "deliveredAt",
  sent_at: "sentAt",
  submit_at: "submittedAt",
  custom: "custom",
} as const satisfies Record<string, keyof DeliveryReport>;

/** Composed variables of a call report: every wire field, plus `id` for the call's `mid`. */
export const CALL_VARIABLES = {
  id: "mid",
  webhook_id: "webhookId",
  mid: "mid",
  bridge: "bridge",
  from: "from",
  to: "to",
  start_at: "startedAt",
  end_at: "endedAt",
  duration: "duration",
  flow_id: "flowId",
  status: "status",
  source: "source",
  recording_url: "recordingUrl",
} as const satisfies Record<string, keyof CallReport>;

type DeliveryVariables = typeof DELIVERY_VARIABLES;
type CallVariables = typeof CALL_VARIABLES;

// ---- Types that follow the template ------------------------------------------------------

type Placeholders<S> = S extends `${string}{{${infer V}}}${infer Rest}`
  ? V | Placeholders<Rest>
  : never;

/** The variables a literal template uses, in its URL and body. */
export type TemplateVariables<T extends ComposedTemplate> =
  | Placeholders<T["url"]>
  | (T["body"] extends Readonly<Record<string, infer V>> ? Placeholders<V> : never);

type Promised<T extends ComposedTemplate, Vars> = Vars[TemplateVariables<T> & keyof Vars];
type Mapped<Vars> = Vars[keyof Vars];

/**
 * A report typed by its template: a field whose variable the template uses is non-null, one
 * it cannot carry is null. A template that is not a literal gives the plain report type.
 */
type Follow<R, T extends ComposedTemplate, Vars> = string extends T["url"]
  ? R
  : {
      [K in keyof R]: K extends Promised<T, Vars>
        ? null extends R[K]
          ? Exclude<R[K], null>
          : R[K]
        : K extends Mapped<Vars> | "cid"
          ? null
          : R[K];
    };

export type ComposedDeliveryReport<T extends ComposedTemplate> = Follow<
  DeliveryReport,
  T,
  DeliveryVariables
>;
export type ComposedCallReport<T extends ComposedTemplate> = Follow<CallReport, T, CallVariables>;

// ---- Compiling a template ----------------------------------------------------------------

/** Where a variable's value is found in a request. */
type Source =
  | { readonly from: "query"; readonly key: string; readonly variable: string }
  | { readonly from: "body"; readonly key: string; readonly variable: string }
  | {
      readonly from: "path";
      readonly segment: number;
      readonly pattern: RegExp;
      readonly variable: string;
    };

export interface CompiledTemplate {
  readonly type: "delivery" | "call";
  readonly method: "GET" | "POST" | "PUT";
  readonly sources: readonly Source[];
  /** Report fields the template promises (non-null in the handler's type). */
  readonly promised: ReadonlySet<string>;
  /** The number of path segments the template has, to align it with the request's path. */
  readonly pathLength: number;
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const EXACTLY_ONE = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const METHODS = ["GET", "POST", "PUT"] as const;

function templateError(problem: string): TypeError {
  return new TypeError(`reportkit: composed template: ${problem}`);
}

/**
 * Validates a template once, at construction, and records where each variable is read.
 * @throws TypeError naming the problem (unknown variable, bad body value, GET with a body, ...)
 */
export function compileTemplate(template: ComposedTemplate): CompiledTemplate {
  if (typeof template !== "object" || template === null) {
    throw templateError("`composed` must be an object like { type, method, url, body }.");
  }
  const { type, url, body } = template;
  if (type !== "delivery" && type !== "call") {
    throw templateError(`\`type\` must be "delivery" or "call", got ${JSON.stringify(type)}.`);
  }
  const method = template.method ?? "POST";
  if (!(METHODS as readonly string[]).includes(method)) {
    throw templateError(`\`method\` must be GET, POST or PUT, got ${JSON.stringify(method)}.`);
  }
  if (template.format !== undefined && template.format !== "json" && template.format !== "form") {
    throw templateError(
      `\`format\` must be "json" or "form", got ${JSON.stringify(template.format)}.`,
    );
  }
  if (typeof url !== "string" || url === "") {
    throw templateError("`url` must be the callback URL entered in the panel.");
  }
  const variables: Record<string, string> =
    type === "delivery" ? DELIVERY_VARIABLES : CALL_VARIABLES;
  const check = (variable: string, where: string) => {
    if (!Object.hasOwn(variables, variable)) {
      throw templateError(
        `unknown variable {{${variable}}} in ${where}. A ${type} template can use: ${Object.keys(
          variables,
        )
          .map((v) => `{{${v}}}`)
          .join(", ")}.`,
      );
    }
    return variable;
  };

  const sources: Source[] = [];
  const { path, query } = splitUrl(url);
  const segments = path.split("/").filter((s) => s !== "");
  segments.forEach((segment, index) => {
    const found = [...segment.matchAll(PLACEHOLDER)];
    if (found.length === 0) return;
    if (found.length > 1) {
      throw templateError(
        `path segment "${segment}" has more than one {{variable}}; use one per segment.`,
      );
    }
    const variable = check(
      (found[0] as RegExpMatchArray)[1] as string,
      `path segment "${segment}"`,
    );
    const [before, after] = segment.split(PLACEHOLDER_ONCE) as [string, string];
    const pattern = new RegExp(`^${escapeRegExp(before)}(.*)${escapeRegExp(after)}$`);
    sources.push({ from: "path", segment: index, pattern, variable });
  });
  for (const [key, value] of new URLSearchParams(query)) {
    const found = [...value.matchAll(PLACEHOLDER)];
    if (found.length === 0) continue;
    const one = EXACTLY_ONE.exec(value);
    if (one === null) {
      throw templateError(
        `query parameter "${key}" must be exactly one {{variable}}, got "${value}".`,
      );
    }
    sources.push({
      from: "query",
      key,
      variable: check(one[1] as string, `query parameter "${key}"`),
    });
  }
  if (body !== undefined) {
    if (method === "GET") {
      throw templateError(
        "a GET webhook has no body: move its values into the URL's query string.",
      );
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw templateError('`body` must be an object of key: "{{variable}}" pairs.');
    }
    for (const [key, value] of Object.entries(body)) {
      const one = typeof value === "string" ? EXACTLY_ONE.exec(value.trim()) : null;
      if (one === null) {
        throw templateError(
          `body key "${key}" must be exactly one {{variable}}, got ${JSON.stringify(value)}.`,
        );
      }
      sources.push({ from: "body", key, variable: check(one[1] as string, `body key "${key}"`) });
    }
  }
  const used = new Set(sources.map((s) => s.variable));
  const required = type === "delivery" ? ["id", "status"] : ["status"];
  for (const variable of required) {
    if (!used.has(variable)) {
      throw templateError(
        `a ${type} template must carry {{${variable}}} (in the URL or the body); without it reports cannot be told apart.`,
      );
    }
  }
  const promised = new Set([...used].map((v) => variables[v] as string));
  return { type, method, sources, promised, pathLength: segments.length };
}

const PLACEHOLDER_ONCE = /\{\{[^{}]*\}\}/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** Path and query of a URL or a template URL, without parsing (placeholders are not URL-safe). */
export function splitUrl(url: string): { path: string; query: string } {
  const relative = url.replace(ORIGIN, "");
  const hash = relative.indexOf("#");
  const rest = hash === -1 ? relative : relative.slice(0, hash);
  const q = rest.indexOf("?");
  return q === -1
    ? { path: rest, query: "" }
    : { path: rest.slice(0, q), query: rest.slice(q + 1) };
}

// ---- Reading a request by the template ----------------------------------------------------

/**
 * The wire payload (provider field names) a composed request carries, and its raw values by
 * the customer's own keys.
 * @throws ReportkitError `invalid_report` naming a key the template promises and the request lacks
 */
export function readComposed(
  compiled: CompiledTemplate,
  url: string,
  body: unknown,
): { payload: Record<string, unknown>; raw: Record<string, unknown> } {
  const { path, query } = splitUrl(url);
  const params = new URLSearchParams(query);
  const fields =
    typeof body === "object" && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : {};
  const segments = path.split("/").filter((s) => s !== "");
  const offset = segments.length - compiled.pathLength;
  const payload: Record<string, unknown> = {};
  for (const source of compiled.sources) {
    const value = readSource(source, params, fields, segments, offset);
    if (value === undefined) throw missing(compiled, source);
    const field = compiled.type === "call" && source.variable === "id" ? "mid" : source.variable;
    if (payload[field] === undefined) payload[field] = value;
  }
  const raw = { ...Object.fromEntries(params), ...fields };
  return { payload, raw };
}

function readSource(
  source: Source,
  params: URLSearchParams,
  fields: Record<string, unknown>,
  segments: string[],
  offset: number,
): unknown {
  if (source.from === "query") return params.get(source.key) ?? undefined;
  if (source.from === "body")
    return Object.hasOwn(fields, source.key) ? fields[source.key] : undefined;
  const segment = offset >= 0 ? segments[source.segment + offset] : undefined;
  const match = segment === undefined ? null : source.pattern.exec(segment);
  if (match === null) return undefined;
  try {
    return decodeURIComponent(match[1] as string);
  } catch {
    return match[1];
  }
}

function missing(compiled: CompiledTemplate, source: Source): ReportkitError {
  const what = compiled.type === "delivery" ? "SMS delivery report" : "call report";
  const where =
    source.from === "query"
      ? `query parameter "${source.key}"`
      : source.from === "body"
        ? `body key "${source.key}"`
        : `path segment ${source.segment + 1}`;
  return new ReportkitError(
    "invalid_report",
    `The composed ${what} is missing ${where}, which the template fills with {{${source.variable}}}.`,
    { field: source.from === "path" ? source.variable : source.key },
  );
}

// Text fields a composed value may leave empty: "" is still the string the template promised.
const TEXT_FIELDS = new Set([
  "mobile",
  "custom",
  "webhookId",
  "mid",
  "bridge",
  "from",
  "to",
  "source",
  "recordingUrl",
]);

/**
 * Holds a composed report to its template's promise: a promised field is never null. An empty
 * text value stays ""; an empty number or time cannot be honoured and is refused.
 * @throws ReportkitError `invalid_report` naming the variable
 */
export function keepPromises(compiled: CompiledTemplate, report: Record<string, unknown>): void {
  for (const field of compiled.promised) {
    if (report[field] !== null) continue;
    if (TEXT_FIELDS.has(field)) {
      report[field] = "";
      continue;
    }
    const source = compiled.sources.find((s) => variableField(compiled, s.variable) === field);
    throw new ReportkitError(
      "invalid_report",
      `The composed report's {{${source?.variable ?? field}}} value is empty, but the template promises it.`,
      { field: source?.variable ?? field },
    );
  }
}

function variableField(compiled: CompiledTemplate, variable: string): string {
  const variables: Record<string, string> =
    compiled.type === "delivery" ? DELIVERY_VARIABLES : CALL_VARIABLES;
  return variables[variable] as string;
}
