import type { ReportType } from "./payloads.js";
import type { Placeholder } from "./template-types.js";
import { variablesOf } from "./variables.js";

// How a template's {{variables}} are found in its text and named against the variable
// tables, for the URL (template-url.ts) and the body (parse-template.ts) alike.

/** Records one problem: the field it is in, and what to do about it. */
export type AddProblem = (field: string, message: string) => void;

/**
 * The placeholder a {{variable}} found in `text` stands for, or undefined after a problem
 * naming the variables there are. `field` is where a problem goes, `where` how it names the spot.
 */
export type PlaceholderOf = (
  found: RegExpExecArray,
  text: string,
  field: string,
  where: string,
) => Placeholder | undefined;

// The provider's raw pages write a placeholder "@{{id}}": the "@" is its templating engine's
// escape (the rendered pages show "{{id}}"), so users paste either form. An "@" right before
// "{{" belongs to the placeholder, never to the literal text around it.

/** The source of one {{variable}} or @{{variable}}, its name trimmed in group 1. */
const PLACEHOLDER = String.raw`@?\{\{\s*([^{}]*?)\s*\}\}`;

/** A value that is exactly one {{variable}} (or @{{variable}}), its name trimmed in group 1. */
export const EXACTLY_ONE = new RegExp(`^${PLACEHOLDER}$`);

/** Each {{variable}} or @{{variable}} in a text, with its name trimmed. */
export function placeholdersIn(text: string): RegExpExecArray[] {
  // A fresh regex each call: no shared lastIndex.
  return [...text.matchAll(placeholderPattern())];
}

/** A global regex finding every placeholder, to replace them (fresh: no shared lastIndex). */
export function placeholderPattern(): RegExp {
  return new RegExp(PLACEHOLDER, "g");
}

/**
 * Names placeholders by the variable table of `type`. Without a type (refused already) every
 * placeholder is undefined and no problem is added: which variables exist is unknown.
 */
export function placeholderOf(type: ReportType | undefined, add: AddProblem): PlaceholderOf {
  const table = type === undefined ? undefined : variablesOf(type);
  return (found, text, field, where) => {
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
}
