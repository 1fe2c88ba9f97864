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

type Promised<T extends ComposedTemplate, Vars> = Vars[TemplateVariables<T> & keyof Vars];
type Mapped<Vars> = Vars[keyof Vars];

/**
 * Numbers and times a template may carry and still leave empty: the provider has no delivery
 * time for an SMS that was never delivered, no start for a call never answered. Refusing such
 * a report would lose it, so these stay nullable even when the template promises them.
 */
const MAY_BE_EMPTY = [
  "credits",
  "units",
  "deliveredAt",
  "sentAt",
  "submittedAt",
  "startedAt",
  "endedAt",
  "duration",
  "flowId",
] as const;
type MayBeEmpty = (typeof MAY_BE_EMPTY)[number];
const MAY_BE_EMPTY_FIELDS: ReadonlySet<string> = new Set(MAY_BE_EMPTY);

/** Whether the type of a template is known: its URL and every body value are literals. */
type IsLiteral<T extends ComposedTemplate> = string extends T["url"]
  ? false
  : T["body"] extends Readonly<Record<string, infer V>>
    ? string extends V
      ? false
      : true
    : true;

/**
 * A report typed by its template: a text field whose variable the template uses is non-null,
 * a field it cannot carry is null. A template that is not a literal gives the plain type.
 */
type Follow<R, T extends ComposedTemplate, Vars> =
  IsLiteral<T> extends false
    ? R
    : {
        [K in keyof R]: K extends Promised<T, Vars>
          ? K extends MayBeEmpty
            ? R[K]
            : Exclude<R[K], null>
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
      /** Index into the template's path segments. */
      readonly segment: number;
      readonly pattern: RegExp;
      readonly variable: string;
    };

export interface CompiledTemplate {
  readonly type: "delivery" | "call";
  readonly method: "GET" | "POST" | "PUT";
  readonly sources: readonly Source[];
  /** Report fields the template promises. */
  readonly promised: ReadonlySet<string>;
  /**
   * The template's path segments (decoded literals, or placeholder patterns), when it has a
   * path placeholder: the request path must end with them. Without one, the path is the
   * route's business and is not read.
   */
  readonly path: readonly (string | RegExp)[] | undefined;
  /** The template's path as written, for error messages. */
  readonly pathText: string;
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

  checkUrlShape(url);
  for (const value of [url, ...Object.values(typeof body === "object" && body ? body : {})]) {
    if (typeof value === "string" && /\{\{|\}\}/.test(value.replace(PLACEHOLDER, ""))) {
      throw templateError(
        `unbalanced braces in ${JSON.stringify(value)}: write each variable as {{name}}.`,
      );
    }
  }
  const sources: Source[] = [];
  const { path, query } = splitUrl(url);
  const segments = pathSegments(path);
  const pattern: (string | RegExp)[] = segments.map((segment, index) => {
    const found = [...segment.matchAll(PLACEHOLDER)];
    if (found.length === 0) return safeDecode(segment);
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
    const matcher = new RegExp(`^${escapeRegExp(before)}(.*)${escapeRegExp(after)}$`);
    sources.push({ from: "path", segment: index, pattern: matcher, variable });
    return matcher;
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
  const hasPathVariable = sources.some((s) => s.from === "path");
  return {
    type,
    method,
    sources,
    promised,
    path: hasPathVariable ? pattern : undefined,
    pathText: path,
  };
}

/**
 * The URL must be the one entered in the panel (scheme and host, which are ignored) or a
 * path; a bare "www.example.com/x" would be read as a path and never match a request.
 */
function checkUrlShape(url: string): void {
  const origin = ORIGIN.exec(url)?.[0] ?? "";
  const rest = url.slice(origin.length);
  if (origin === "" && !/^[/?]/.test(rest)) {
    throw templateError(
      `\`url\` must be the full callback URL ("https://example.com/hooks?id={{id}}") or a path starting with "/", got ${JSON.stringify(url)}.`,
    );
  }
  if (origin.includes("{{")) {
    throw templateError(
      `{{variables}} can stand in the URL's path and query only, not in its host: ${JSON.stringify(url)}.`,
    );
  }
  const hash = rest.indexOf("#");
  if (hash !== -1 && rest.slice(hash).includes("{{")) {
    throw templateError(
      `{{variables}} can stand in the URL's path and query only; a #fragment never reaches the receiver: ${JSON.stringify(url)}.`,
    );
  }
}

/** Path segments without the empty ones a leading or a trailing "/" makes. */
function pathSegments(path: string): string[] {
  const segments = path.split("/");
  if (segments[0] === "") segments.shift();
  if (segments.length > 0 && segments[segments.length - 1] === "") segments.pop();
  return segments;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const PLACEHOLDER_ONCE = /\{\{[^{}]*\}\}/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// "https://host" or a protocol-relative "//host".
const ORIGIN = /^(?:[a-z][a-z0-9+.-]*:)?\/\/[^/?#]*/i;

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
  const segments = compiled.path === undefined ? [] : matchPath(compiled, path);
  const payload: Record<string, unknown> = {};
  for (const source of compiled.sources) {
    const value = readSource(source, params, fields, segments);
    if (value === undefined) throw missing(compiled, source);
    const field = compiled.type === "call" && source.variable === "id" ? "mid" : source.variable;
    if (payload[field] === undefined) payload[field] = value;
  }
  const raw = { ...Object.fromEntries(params), ...fields };
  return { payload, raw };
}

/**
 * The request path's last segments, one for each of the template's, once every literal and
 * placeholder of the template matched them: extra or missing segments must not shift values.
 * @throws ReportkitError `invalid_report` when the path is not the template's
 */
function matchPath(compiled: CompiledTemplate, path: string): string[] {
  const template = compiled.path as readonly (string | RegExp)[];
  const segments = pathSegments(path);
  const tail = segments.slice(segments.length - template.length);
  const fits =
    segments.length >= template.length &&
    template.every((part, i) =>
      typeof part === "string"
        ? safeDecode(tail[i] as string) === part
        : part.test(tail[i] as string),
    );
  if (!fits) {
    throw new ReportkitError(
      "invalid_report",
      `The request path ${JSON.stringify(path.slice(0, 200))} does not end with the composed template's path ${JSON.stringify(compiled.pathText)}, segment by segment; check the route and the template's URL.`,
      { field: "path" },
    );
  }
  return tail;
}

function readSource(
  source: Source,
  params: URLSearchParams,
  fields: Record<string, unknown>,
  segments: string[],
): unknown {
  // Repeated keys: the last one, as body forms decode.
  if (source.from === "query") return params.getAll(source.key).at(-1);
  if (source.from === "body")
    return Object.hasOwn(fields, source.key) ? fields[source.key] : undefined;
  const match = source.pattern.exec(segments[source.segment] as string);
  return match === null ? undefined : safeDecode(match[1] as string);
}

function missing(compiled: CompiledTemplate, source: Source): ReportkitError {
  const what = compiled.type === "delivery" ? "SMS delivery report" : "call report";
  // Path segments are checked as a whole by matchPath: only a key can be missing.
  const { key } = source as Exclude<Source, { from: "path" }>;
  const where = source.from === "query" ? `query parameter "${key}"` : `body key "${key}"`;
  return new ReportkitError(
    "invalid_report",
    `The composed ${what} is missing ${where}, which the template fills with {{${source.variable}}}.`,
    { field: key },
  );
}

/**
 * Holds a composed report to its template's promise: a promised text field is never null (an
 * empty value stays ""). An empty number or time stays null, as in a standard push: the
 * provider has no such value for this event, and refusing the report would lose it.
 */
export function keepPromises(compiled: CompiledTemplate, report: Record<string, unknown>): void {
  for (const field of compiled.promised) {
    // id and status cannot be empty (parsing refused that already): the rest is text.
    if (report[field] === null && !MAY_BE_EMPTY_FIELDS.has(field)) report[field] = "";
  }
}
