import {
  type CALL_VARIABLES,
  type CallField,
  type ComposedTemplate,
  type DELIVERY_VARIABLES,
  type DeliveryField,
  type PathSegment,
  type Placeholder,
  parseTemplate,
  pathSegments,
  safeDecode,
  type TemplateFormat,
  type TemplateMethod,
  type TemplateProblem,
  type TemplateVariables,
  UNIX_READINGS,
} from "@reportkit/wire";
import { ReportkitError } from "./errors.js";
import type { CallReport, DeliveryReport } from "./schemas.js";

// The template grammar, the variable tables and the wire payloads are @reportkit/wire's, shared
// with the sandbox; this file maps them onto the normalized reports and reads requests by them.
export {
  CALL_VARIABLES,
  type ComposedTemplate,
  DELIVERY_VARIABLES,
  type TemplateProblem,
  type TemplateVariables,
} from "@reportkit/wire";

/** The report field each wire field of a delivery report becomes. */
const DELIVERY_REPORT_FIELDS = {
  id: "id",
  mobile: "mobile",
  status: "status",
  credits: "credits",
  units: "units",
  deliv_at: "deliveredAt",
  sent_at: "sentAt",
  submit_at: "submittedAt",
  deliv_time: "deliveredAt",
  sent_time: "sentAt",
  submit_time: "submittedAt",
  cid: "cid",
  custom: "custom",
} as const satisfies Record<DeliveryField, keyof DeliveryReport>;

/** The report field each wire field of a call report becomes. */
const CALL_REPORT_FIELDS = {
  webhook_id: "webhookId",
  bridge: "bridge",
  from: "from",
  to: "to",
  start_at: "startedAt",
  end_at: "endedAt",
  duration: "duration",
  mid: "mid",
  flow_id: "flowId",
  status: "status",
  source: "source",
  recording_url: "recordingUrl",
} as const satisfies Record<CallField, keyof CallReport>;

/** Variable name -> the report field it fills, through its wire field. */
type ReportFieldsOf<Vars, Fields> = { [V in keyof Vars]: Fields[Vars[V] & keyof Fields] };
type DeliveryVariables = ReportFieldsOf<typeof DELIVERY_VARIABLES, typeof DELIVERY_REPORT_FIELDS>;
type CallVariables = ReportFieldsOf<typeof CALL_VARIABLES, typeof CALL_REPORT_FIELDS>;

// ---- Types that follow the template ------------------------------------------------------

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
  | { readonly from: "query" | "body"; readonly key: string; readonly placeholder: Placeholder }
  | {
      readonly from: "path";
      /** Index into the template's path segments. */
      readonly segment: number;
      readonly placeholder: Placeholder;
    };

export interface CompiledTemplate {
  readonly type: "delivery" | "call";
  readonly method: TemplateMethod;
  /** The template's body format; a request is read by its Content-Type all the same. */
  readonly declaredFormat: TemplateFormat;
  readonly sources: readonly Source[];
  /** Report fields the template promises. */
  readonly promised: ReadonlySet<string>;
  /**
   * The template's path segments, when it has a path placeholder: the request path must end
   * with them. Without one, the path is the route's business and is not read.
   */
  readonly path: readonly PathSegment[] | undefined;
  /** The template's path as written, for error messages. */
  readonly pathText: string;
}

/**
 * A composed template refused when the receiver is built: `problems` names each, with the
 * field it is in (the sandbox refuses the same template with the same problems, as a 422).
 */
export class ComposedTemplateError extends TypeError {
  override readonly name = "ComposedTemplateError";
  readonly code = "invalid_template";
  readonly problems: readonly TemplateProblem[];

  constructor(problems: readonly TemplateProblem[]) {
    super(`reportkit: composed template: ${problems.map((p) => p.message).join(" ")}`);
    this.problems = problems;
  }
}

/**
 * Validates a template once, at construction, and records where each variable is read.
 * @throws ComposedTemplateError (a TypeError) naming every problem: unknown variable, a body
 * value that is not one {{variable}}, GET with a body, no identity, ...
 */
export function compileTemplate(template: ComposedTemplate): CompiledTemplate {
  const parsed = parseTemplate(template);
  if (!parsed.ok) throw new ComposedTemplateError(parsed.problems);
  const { type, method, format, segments, query, bodyValues, path } = parsed.template;
  const sources: Source[] = [
    ...segments.flatMap((segment, index) =>
      segment.kind === "placeholder"
        ? [{ from: "path" as const, segment: index, placeholder: segment.placeholder }]
        : [],
    ),
    ...query.map(({ key, placeholder }) => ({ from: "query" as const, key, placeholder })),
    ...bodyValues.map(({ key, placeholder }) => ({ from: "body" as const, key, placeholder })),
  ];
  const reportFields: Record<string, string> =
    type === "delivery" ? DELIVERY_REPORT_FIELDS : CALL_REPORT_FIELDS;
  const promised = new Set(
    sources.map((s) => reportFields[s.placeholder.field] as string).filter(Boolean),
  );
  return {
    type,
    method,
    declaredFormat: format,
    sources,
    promised,
    path: sources.some((s) => s.from === "path") ? segments : undefined,
    pathText: path,
  };
}

// The request's path and query, without parsing the URL as a whole.
const ORIGIN = /^(?:[a-z][a-z0-9+.-]*:)?\/\/[^/?#]*/i;

/** Path and query of a URL or a template URL, without parsing (placeholders are not URL-safe). */
function splitUrl(url: string): { path: string; query: string } {
  const relative = url.replace(ORIGIN, "");
  const hash = relative.indexOf("#");
  const rest = hash === -1 ? relative : relative.slice(0, hash);
  const q = rest.indexOf("?");
  return q === -1
    ? { path: rest, query: "" }
    : { path: rest.slice(0, q), query: rest.slice(q + 1) };
}

// ---- Reading a request by the template ----------------------------------------------------

const DIGITS = /^\d+$/;
const unixReadings: Readonly<Record<string, string>> = UNIX_READINGS;

/**
 * The wire payload (provider field names) a composed request carries, and its raw values by
 * the customer's own keys.
 * @throws ReportkitError `invalid_report` naming a key the template promises and the request
 * lacks, or a value without the literal text the template puts around it
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
    const value = readSource(compiled, source, params, fields, segments);
    const { variable } = source.placeholder;
    // The documentation's second meaning: {{sent_time}} filled with unix digits is sent_at.
    const unix = Object.hasOwn(unixReadings, variable) ? unixReadings[variable] : undefined;
    const field =
      unix !== undefined && typeof value === "string" && DIGITS.test(value)
        ? unix
        : source.placeholder.field;
    if (payload[field] === undefined) payload[field] = value;
  }
  const raw = { ...Object.fromEntries(params), ...fields };
  return { payload, raw };
}

/**
 * The request path's last segments, decoded, one for each of the template's, once every
 * literal and placeholder of the template matched them: extra or missing segments must not
 * shift values.
 * @throws ReportkitError `invalid_report` when the path is not the template's
 */
function matchPath(compiled: CompiledTemplate, path: string): string[] {
  const template = compiled.path as readonly PathSegment[];
  const segments = pathSegments(path);
  // A last placeholder filled with "" leaves a trailing "/" ("/hooks/a/" for
  // "/hooks/{{id}}/{{custom}}"): that "/" then ends an empty segment, not the path.
  const tail =
    matchTail(template, segments) ??
    (path.endsWith("/") ? matchTail(template, [...segments, ""]) : undefined);
  if (tail === undefined) {
    throw new ReportkitError(
      "invalid_report",
      `The request path ${JSON.stringify(path.slice(0, 200))} does not end with the composed template's path ${JSON.stringify(compiled.pathText)}, segment by segment; check the route and the template's URL.`,
      { field: "path" },
    );
  }
  return tail;
}

/** The last segments, decoded, when they match the template's one by one. */
function matchTail(template: readonly PathSegment[], segments: string[]): string[] | undefined {
  if (segments.length < template.length) return undefined;
  const tail = segments.slice(segments.length - template.length).map(safeDecode);
  const fits = template.every((part, i) =>
    part.kind === "literal"
      ? tail[i] === part.text
      : unwrap(tail[i] as string, part.placeholder) !== undefined,
  );
  return fits ? tail : undefined;
}

/** The value inside the template's literal text around a placeholder, if it has that text. */
function unwrap(text: string, { prefix, suffix }: Placeholder): string | undefined {
  if (text.length < prefix.length + suffix.length) return undefined;
  if (!text.startsWith(prefix) || !text.endsWith(suffix)) return undefined;
  return text.slice(prefix.length, text.length - suffix.length);
}

function readSource(
  compiled: CompiledTemplate,
  source: Source,
  params: URLSearchParams,
  fields: Record<string, unknown>,
  segments: string[],
): unknown {
  if (source.from === "path") {
    return unwrap(segments[source.segment] as string, source.placeholder);
  }
  if (source.from === "body") {
    if (!Object.hasOwn(fields, source.key)) throw missing(compiled, source);
    return fields[source.key];
  }
  // Repeated keys: the last one, as body forms decode.
  const value = params.getAll(source.key).at(-1);
  if (value === undefined) throw missing(compiled, source);
  const inner = unwrap(value, source.placeholder);
  if (inner === undefined) {
    const { prefix, variable, suffix } = source.placeholder;
    throw new ReportkitError(
      "invalid_report",
      `The composed ${kindName(compiled)}'s query parameter "${source.key}" is ${JSON.stringify(value.slice(0, 200))}, without the text the template puts around {{${variable}}}: ${JSON.stringify(`${prefix}{{${variable}}}${suffix}`)}; check the template's URL.`,
      { field: source.key },
    );
  }
  return inner;
}

function kindName(compiled: CompiledTemplate): string {
  return compiled.type === "delivery" ? "SMS delivery report" : "call report";
}

function missing(compiled: CompiledTemplate, source: Source & { key: string }): ReportkitError {
  const where =
    source.from === "query" ? `query parameter "${source.key}"` : `body key "${source.key}"`;
  return new ReportkitError(
    "invalid_report",
    `The composed ${kindName(compiled)} is missing ${where}, which the template fills with {{${source.placeholder.variable}}}.`,
    { field: source.key },
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
