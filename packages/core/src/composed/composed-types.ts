import type {
  CALL_VARIABLES,
  ComposedTemplate,
  DELIVERY_VARIABLES,
  TemplateVariables,
} from "@reportkit/wire";
import type { CallReport, DeliveryReport } from "../report/schemas.js";
import type { CALL_REPORT_FIELDS, DELIVERY_REPORT_FIELDS, MayBeEmpty } from "./composed-fields.js";

// The handler types of a composed webhook, worked out from a literal template by the type
// checker: a field the template carries is non-null, one it cannot carry is null. Type-level
// only; reading a request by the template is compile-template.ts and read-composed.ts.

/** Variable name -> the report field it fills, through its wire field. */
type ReportFieldsOf<Vars, Fields> = { [V in keyof Vars]: Fields[Vars[V] & keyof Fields] };
type DeliveryVariables = ReportFieldsOf<typeof DELIVERY_VARIABLES, typeof DELIVERY_REPORT_FIELDS>;
type CallVariables = ReportFieldsOf<typeof CALL_VARIABLES, typeof CALL_REPORT_FIELDS>;

type Promised<T extends ComposedTemplate, Vars> = Vars[TemplateVariables<T> & keyof Vars];
/** Every report field a wire field fills, whether or not a variable carries it (cid, custom1...). */
type FromWire =
  | (typeof DELIVERY_REPORT_FIELDS)[keyof typeof DELIVERY_REPORT_FIELDS]
  | (typeof CALL_REPORT_FIELDS)[keyof typeof CALL_REPORT_FIELDS];

/** Whether the type of a template is known: its URL and every body value are literals. */
type IsLiteral<T extends ComposedTemplate> = string extends T["url"]
  ? false
  : T["body"] extends Readonly<Record<string, infer V>>
    ? string extends V
      ? false
      : true
    : true;

/**
 * A report typed by its template: a text field whose variable the template uses is non-null,
 * a field it cannot carry is null. A template that is not a literal gives the plain type.
 */
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
