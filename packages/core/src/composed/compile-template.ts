import {
  type ComposedTemplate,
  FIELD_TABLES,
  type FieldRow,
  type PathSegment,
  type Placeholder,
  parseTemplate,
  type TemplateMethod,
  type TemplateProblem,
} from "@reportkit/wire";

// A composed template checked once, when the receiver is built, by @reportkit/wire's grammar (as
// the sandbox checks it), into where each variable is read in a request (read-composed.ts).

export type Source =
  | { readonly from: "query" | "body"; readonly key: string; readonly placeholder: Placeholder }
  | { readonly from: "path"; readonly segment: number; readonly placeholder: Placeholder };

export interface CompiledTemplate {
  readonly type: "delivery" | "call";
  readonly method: TemplateMethod;
  /** Whether a request's body is read: the template has body values, and is no GET. */
  readonly readsBody: boolean;
  /** How a body without a Content-Type is read: a form as urlencoded (multipart needs one). */
  readonly format: "json" | "urlencoded";
  readonly sources: readonly Source[];
  /** Report fields the template promises. */
  readonly promised: ReadonlySet<string>;
  /** The path segments the request's path must end with, when one is a placeholder. */
  readonly path: readonly PathSegment[] | undefined;
  /** The template's path as written, for error messages. */
  readonly pathText: string;
}

/** A composed template refused when the receiver is built: `problems` names each, by field. */
export class ComposedTemplateError extends TypeError {
  override readonly name = "ComposedTemplateError";
  readonly code = "invalid_template";
  readonly problems: readonly TemplateProblem[];

  constructor(problems: readonly TemplateProblem[]) {
    super(`reportkit: composed template: ${problems.map((p) => p.message).join(" ")}`);
    this.problems = problems;
  }
}

/** Checks a template once, at construction. @throws ComposedTemplateError naming every problem */
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
  const table: Readonly<Record<string, FieldRow>> = FIELD_TABLES[type];
  const promised = new Set(sources.flatMap((s) => table[s.placeholder.field]?.field ?? []));
  return {
    type,
    method,
    readsBody: method !== "GET" && bodyValues.length > 0,
    format: format === "json" ? "json" : "urlencoded",
    sources,
    promised,
    path: sources.some((s) => s.from === "path") ? segments : undefined,
    pathText: path,
  };
}

const PHONE_FIELDS: ReadonlySet<string> = new Set(["mobile", "from", "to", "bridge", "receiver"]);

/** The keys a phone number comes under (a template's own too): a redacting journal hides them. */
export function phoneKeysOf(template: CompiledTemplate | undefined): ReadonlySet<string> {
  const keys = new Set(PHONE_FIELDS);
  for (const source of template?.sources ?? []) {
    if (source.from !== "path" && PHONE_FIELDS.has(source.placeholder.field)) keys.add(source.key);
  }
  return keys;
}
