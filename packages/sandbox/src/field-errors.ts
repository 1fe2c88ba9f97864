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

// ---- Checks of the values a caller gave: each adds its error and gives the fallback ---------

const DIGITS = /^\d+$/;

/** A date given, checked; `now` when not given. */
export function checkAt(check: FieldCheck, value: unknown, now: Date): Date {
  if (value === undefined) return now;
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    check.add("at", "The at field must be a valid date.");
    return now;
  }
  return value;
}

/**
 * A whole number of seconds given (or its digits, as the HTTP API may send it), at most a week,
 * checked; `fallback` when not given.
 */
export function checkSeconds(
  check: FieldCheck,
  field: string,
  value: unknown,
  fallback: number,
): number {
  const seconds = typeof value === "string" && DIGITS.test(value) ? Number(value) : value;
  if (seconds === undefined) return fallback;
  if (
    typeof seconds !== "number" ||
    !Number.isSafeInteger(seconds) ||
    seconds < 0 ||
    seconds > 604_800
  ) {
    check.add(field, `The ${field} field must be a whole number of seconds from 0 to 604800.`);
    return fallback;
  }
  return seconds;
}

export function checkStatus(
  check: FieldCheck,
  value: unknown,
  fallback: string,
  field = "status",
): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || !/^[A-Za-z_-]{1,32}$/.test(value)) {
    check.add(field, `The ${field} field must be 1 to 32 letters, e.g. DELIVRD or ANSWER.`);
    return fallback;
  }
  return value;
}

export function checkText(
  check: FieldCheck,
  field: string,
  value: unknown,
  max: number,
): string | undefined {
  if (value === undefined) return undefined;
  // No control characters: ids and names end up in terminals (the CLI's attempt lines).
  if (typeof value !== "string" || value.length > max || hasControlCharacter(value)) {
    check.add(
      field,
      `The ${field} field must be a single-line string of at most ${max} characters, without control characters.`,
    );
    return undefined;
  }
  return value;
}

export function checkPhone(
  check: FieldCheck,
  field: string,
  value: unknown,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  const digits = typeof value === "number" ? String(value) : value;
  if (typeof digits !== "string" || !/^\d{3,15}$/.test(digits)) {
    check.add(field, `The ${field} field must be 3 to 15 digits (country code included).`);
    return fallback;
  }
  return Number(digits);
}
