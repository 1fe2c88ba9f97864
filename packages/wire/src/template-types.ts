import type { ReportType } from "./payloads.js";

// The shapes of the composed-webhook grammar (provider-interface.md 6.3 and 2.6): what a
// customer enters in the panel, what parsing it gives, and the variables a literal template
// uses, worked out by the type checker. Parsing is parse-template.ts.

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
