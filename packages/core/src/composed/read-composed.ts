import {
  type PathSegment,
  type Placeholder,
  pathSegments,
  safeDecode,
  UNIX_READINGS,
} from "@reportkit/wire";
import { isRecord } from "@reportkit/wire/internal";
import { invalidReport, type ReportkitError } from "../reply/errors.js";
import { boundedRaw, KIND_NAMES } from "../report/parse-report.js";
import type { Report } from "../report/schemas.js";
import type { CompiledTemplate, Source } from "./compile-template.js";
import { MAY_BE_EMPTY_FIELDS } from "./composed-types.js";

// A request read by its compiled template: each variable's value from the path, query or body,
// under the wire field it carries, so that parsing reads it as a standard push.

// The request's path and query, without parsing the URL as a whole. Only a URL with a scheme
// has an origin to strip: a Node request's url is its path, and one that starts with "//" (an
// empty first placeholder) is a path there, not a scheme-relative URL.
const PATH_AND_QUERY = /^(?:[a-z][a-z0-9+.-]*:\/\/[^/?#]*)?([^?#]*)(?:\?([^#]*))?/i;

const DIGITS = /^\d+$/;
const unixReadings: Readonly<Record<string, string>> = UNIX_READINGS;

/** A composed request's wire payload, and its raw values. @throws ReportkitError invalid_report */
export function readComposed(
  compiled: CompiledTemplate,
  url: string,
  body: unknown,
): { fields: Record<string, unknown>; raw: Record<string, unknown> } {
  const [, path = "", query = ""] = PATH_AND_QUERY.exec(url) ?? [];
  const params = new URLSearchParams(query);
  const values: Record<string, unknown> = isRecord(body) ? body : {};
  const segments = compiled.path === undefined ? [] : matchPath(compiled, path);
  const payload: Record<string, unknown> = {};
  for (const source of compiled.sources) {
    const value = readSource(compiled, source, params, values, segments);
    const { variable, field: wire } = source.placeholder;
    // The documentation's second meaning: {{sent_time}} filled with unix digits is sent_at.
    const unix = Object.hasOwn(unixReadings, variable) && typeof value === "string";
    const field = unix && DIGITS.test(value) ? (unixReadings[variable] as string) : wire;
    if (payload[field] === undefined) payload[field] = value;
  }
  return { fields: payload, raw: { ...Object.fromEntries(params), ...values } };
}

/** The path's last segments, decoded, each matched to the template's (none may shift values). */
function matchPath(compiled: CompiledTemplate, path: string): string[] {
  const template = compiled.path as readonly PathSegment[];
  const segments = pathSegments(path);
  // A last placeholder filled with "" leaves a trailing "/" ("/hooks/a/" for
  // "/hooks/{{id}}/{{custom}}"): that "/" then ends an empty segment, not the path.
  const tail =
    matchTail(template, segments) ??
    (path.endsWith("/") ? matchTail(template, [...segments, ""]) : undefined);
  if (tail === undefined) {
    throw invalidReport(
      "path",
      `The request path ${JSON.stringify(path.slice(0, 200))} does not end with the composed template's path ${JSON.stringify(compiled.pathText)}, segment by segment; check the route and the template's URL.`,
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
  const fits = text.length >= prefix.length + suffix.length;
  if (!fits || !text.startsWith(prefix) || !text.endsWith(suffix)) return undefined;
  return text.slice(prefix.length, text.length - suffix.length);
}

function readSource(
  compiled: CompiledTemplate,
  source: Source,
  params: URLSearchParams,
  fields: Record<string, unknown>,
  segments: string[],
): unknown {
  if (source.from === "path") return unwrap(segments[source.segment] ?? "", source.placeholder);
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
    throw invalidReport(
      source.key,
      `The composed ${KIND_NAMES[compiled.type]}'s query parameter "${source.key}" is ${JSON.stringify(value.slice(0, 200))}, without the text the template puts around {{${variable}}}: ${JSON.stringify(`${prefix}{{${variable}}}${suffix}`)}; check the template's URL.`,
    );
  }
  return inner;
}

function missing(compiled: CompiledTemplate, source: Source & { key: string }): ReportkitError {
  const where =
    source.from === "query" ? `query parameter "${source.key}"` : `body key "${source.key}"`;
  return invalidReport(
    source.key,
    `The composed ${KIND_NAMES[compiled.type]} is missing ${where}, which the template fills with {{${source.placeholder.variable}}}.`,
  );
}

/** A promised text field is never null (empty stays ""); `raw` by the customer's own keys. */
export function keepPromises(
  compiled: CompiledTemplate,
  parsed: Report,
  raw: Record<string, unknown>,
): void {
  const report = parsed as unknown as Record<string, unknown>;
  report.raw = boundedRaw(raw, parsed.warnings);
  for (const field of compiled.promised) {
    // id and status cannot be empty (parsing refused that already): the rest is text.
    if (report[field] === null && !MAY_BE_EMPTY_FIELDS.has(field)) report[field] = "";
  }
}
