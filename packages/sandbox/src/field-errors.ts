/**
 * Invalid input, by field, with Laravel-style messages ("The mobile field must be ...").
 * The HTTP layer answers it with 422; in-process callers get it thrown.
 */
export class FieldErrors extends Error {
  override readonly name = "FieldErrors";
  readonly errors: Readonly<Record<string, readonly string[]>>;

  constructor(errors: Readonly<Record<string, readonly string[]>>) {
    super(summarize(errors));
    this.errors = errors;
  }
}

/** Laravel's summary: the first message, plus "(and N more errors)". */
export function summarize(errors: Record<string, readonly string[]>): string {
  const all = Object.values(errors).flat();
  const first = all[0] ?? "The given data was invalid.";
  const more = all.length - 1;
  return more > 0 ? `${first} (and ${more} more error${more === 1 ? "" : "s"})` : first;
}

/** Collects field errors; `done()` throws them if there are any. */
export class FieldCheck {
  // No prototype: a field named "__proto__" or "constructor" is a field like any other here.
  private readonly errors: Record<string, string[]> = Object.create(null);

  add(field: string, message: string): void {
    const list = this.errors[field];
    if (list === undefined) this.errors[field] = [message];
    else list.push(message);
  }

  get ok(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  done(): void {
    if (!this.ok) throw new FieldErrors(this.errors);
  }
}

// C0 (line breaks included), DEL and C1: what a terminal may act on.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Whether `text` holds a control character: refused in ids, names and URIs (422). */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}
