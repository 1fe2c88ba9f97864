// A store's failed call, in one shape for every store: "<who>: <what> failed on <where>
// (<reason>)."; `where` names scheme, host and port only, never a user name or password.

/** A store call that failed: what, on which server, and why. */
export class StoreError extends Error {
  override readonly name = "StoreError";
  /** The store's factory, e.g. "postgresInbox". */
  readonly who: string;
  /** What it was doing, e.g. "claim", "listing the journal". */
  readonly what: string;
  /** The server, e.g. "Postgres at db.internal:5432". */
  readonly where: string;
  /** Why, as the driver said it. */
  readonly reason: string;

  constructor(who: string, what: string, where: string, cause: unknown, reason = reasonOf(cause)) {
    super(`${who}: ${what} failed on ${where} (${reason}).`, { cause });
    this.who = who;
    this.what = what;
    this.where = where;
    this.reason = reason;
  }
}

/**
 * What went wrong, as one line: an error's message, else its code (Node's errors of several
 * addresses tried at once have an empty message and the reasons inside).
 */
export function reasonOf(cause: unknown): string {
  if (cause instanceof StoreError) return cause.reason;
  if (!(cause instanceof Error)) return String(cause);
  if (cause.message !== "") return cause.message;
  if (cause instanceof AggregateError && cause.errors.length > 0) {
    return [...new Set(cause.errors.map(reasonOf))].join("; ");
  }
  const { code } = cause as { code?: unknown };
  return typeof code === "string" ? code : cause.name;
}
