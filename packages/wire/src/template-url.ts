import {
  type AddProblem,
  type PlaceholderOf,
  placeholderPattern,
  placeholdersIn,
} from "./template-placeholders.js";
import type { ParsedTemplate, PathSegment, QueryParameter } from "./template-types.js";

// A template's URL: where its {{variables}} stand in the path and the query (parsing), and the
// URL the provider requests once they are filled in (rendering).

const ORIGIN = /^https?:\/\/[^/?#]*/i;

/** The URL a problem shows as an example of a good one. */
export const EXAMPLE_URL = '"https://example.com/dlr?id={{id}}&state={{status}}"';

/** A template URL, checked: the text trimmed, its path as written, where its variables stand. */
export interface ParsedUrl {
  text: string;
  path: string;
  segments: PathSegment[];
  query: QueryParameter[];
}

/** The URL's path and query, checked; undefined when its shape is wrong as a whole. */
export function parseUrl(
  text: string,
  add: AddProblem,
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
  if (/\{\{|\}\}/.test(text.replace(placeholderPattern(), ""))) {
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
    new URL(text.replace(placeholderPattern(), "x"), "http://template.invalid");
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
  const segments = parsePath(path, add, placeholder);
  const query = parseQuery(queryText, add, placeholder);
  return { text, path, segments, query };
}

/** The path's segments: literal text decoded, one placeholder at most in each. */
function parsePath(path: string, add: AddProblem, placeholder: PlaceholderOf): PathSegment[] {
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
  return segments;
}

/** The query parameters that carry a variable: one per value, a name of its own. */
function parseQuery(
  queryText: string,
  add: AddProblem,
  placeholder: PlaceholderOf,
): QueryParameter[] {
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
  return query;
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
  return template.url.replace(placeholderPattern(), (_, name: string) =>
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
