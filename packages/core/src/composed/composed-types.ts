import {
  CALL_FIELD_TABLE,
  type CALL_VARIABLES,
  type ComposedTemplate,
  DELIVERY_FIELD_TABLE,
  type DELIVERY_VARIABLES,
  type FieldRow,
  type TemplateVariables,
} from "@reportkit/wire";
import type { CallReport, DeliveryReport } from "../report/schemas.js";

// A composed report's fields, off wire's field tables: the handler types a literal template gives
// (a field it carries is non-null, one it cannot carry is null), and those that may stay empty.

type Table = Readonly<Record<string, FieldRow>>;

type ReportFieldsOf<T extends Table> = { readonly [K in keyof T]: T[K]["field"] };
type DeliveryFields = ReportFieldsOf<typeof DELIVERY_FIELD_TABLE>;
type CallFields = ReportFieldsOf<typeof CALL_FIELD_TABLE>;

const EMPTY_READINGS = ["count", "decimal", "unixTime", "wallClock", "timestamp"] as const;

type EmptyFieldsOf<T extends Table> = {
  [K in keyof T]: T[K]["read"] extends (typeof EMPTY_READINGS)[number] ? T[K]["field"] : never;
}[keyof T];
type MayBeEmpty =
  | EmptyFieldsOf<typeof DELIVERY_FIELD_TABLE>
  | EmptyFieldsOf<typeof CALL_FIELD_TABLE>;

/**
 * Numbers and times a template may promise and still leave empty (no delivery time for an SMS
 * never delivered): refusing such a report would lose it, so they stay nullable.
 */
export const MAY_BE_EMPTY_FIELDS: ReadonlySet<string> = new Set(
  [...Object.values(DELIVERY_FIELD_TABLE), ...Object.values(CALL_FIELD_TABLE)]
    .filter((row: FieldRow) => (EMPTY_READINGS as readonly string[]).includes(row.read))
    .map((row) => row.field),
);

/** Variable name -> the report field it fills, through its wire field. */
type VariableFields<Vars, Fields> = { [V in keyof Vars]: Fields[Vars[V] & keyof Fields] };
type DeliveryVariables = VariableFields<typeof DELIVERY_VARIABLES, DeliveryFields>;
type CallVariables = VariableFields<typeof CALL_VARIABLES, CallFields>;

type Promised<T extends ComposedTemplate, Vars> = Vars[TemplateVariables<T> & keyof Vars];
/** Every report field a wire field fills, whether or not a variable carries it (cid, custom1...). */
type FromWire = DeliveryFields[keyof DeliveryFields] | CallFields[keyof CallFields];

/** Whether the type of a template is known: its URL and every body value are literals. */
type IsLiteral<T extends ComposedTemplate> = string extends T["url"]
  ? false
  : T["body"] extends Readonly<Record<string, infer V>>
    ? string extends V
      ? false
      : true
    : true;

/** A report typed by its template; a template that is not a literal gives the plain type. */
type Follow<R, T extends ComposedTemplate, Vars> =
  IsLiteral<T> extends false
    ? R
    : {
        [K in keyof R]: K extends Promised<T, Vars>
          ? K extends MayBeEmpty
            ? R[K]
            : Exclude<R[K], null>
          : K extends FromWire
            ? null
            : R[K];
      };

export type ComposedDeliveryReport<T extends ComposedTemplate> = Follow<
  DeliveryReport,
  T,
  DeliveryVariables
>;
export type ComposedCallReport<T extends ComposedTemplate> = Follow<CallReport, T, CallVariables>;
