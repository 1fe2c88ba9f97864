import { CALL_FIELD_TABLE, DELIVERY_FIELD_TABLE, type FieldRow } from "@reportkit/wire";

// Which report field each wire field of a composed template fills, and which of them may stay
// empty, read off wire's field tables: the facts the handler types (composed-types.ts), the
// compiler (compile-template.ts) and the reader (read-composed.ts) all follow.

type Table = Readonly<Record<string, FieldRow>>;

/** Wire field -> the report field it fills. */
export type ReportFieldsOf<T extends Table> = { readonly [K in keyof T]: T[K]["field"] };

function reportFieldsOf<T extends Table>(table: T): ReportFieldsOf<T> {
  return Object.fromEntries(
    Object.entries(table).map(([wire, row]) => [wire, row.field]),
  ) as ReportFieldsOf<T>;
}

export const DELIVERY_REPORT_FIELDS = reportFieldsOf(DELIVERY_FIELD_TABLE);
export const CALL_REPORT_FIELDS = reportFieldsOf(CALL_FIELD_TABLE);

/** Readings a template may promise and still leave empty: numbers, amounts and times. */
type EmptyReading = "count" | "decimal" | "unixTime" | "wallClock" | "timestamp";
const EMPTY_READINGS: ReadonlySet<string> = new Set<EmptyReading>([
  "count",
  "decimal",
  "unixTime",
  "wallClock",
  "timestamp",
]);

type EmptyFieldsOf<T extends Table> = {
  [K in keyof T]: T[K]["read"] extends EmptyReading ? T[K]["field"] : never;
}[keyof T];

/** The report fields whose reading may stay empty. */
export type MayBeEmpty =
  | EmptyFieldsOf<typeof DELIVERY_FIELD_TABLE>
  | EmptyFieldsOf<typeof CALL_FIELD_TABLE>;

/**
 * Numbers and times a template may carry and still leave empty: the provider has no delivery
 * time for an SMS that was never delivered, no start for a call never answered. Refusing such
 * a report would lose it, so these stay nullable even when the template promises them.
 */
export const MAY_BE_EMPTY_FIELDS: ReadonlySet<string> = new Set(
  [...Object.values(DELIVERY_FIELD_TABLE), ...Object.values(CALL_FIELD_TABLE)]
    .filter((row: FieldRow) => EMPTY_READINGS.has(row.read))
    .map((row) => row.field),
);
