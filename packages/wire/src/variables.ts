import type { CallPayload, DeliveryPayload, ReportType } from "./payloads.js";
import {
  CALL_FIELD_TABLE,
  DELIVERY_FIELD_TABLE,
  type DeliveryField,
  type FieldRow,
} from "./report-fields.js";

/** Variable name -> the wire field of `T` whose row lists it. */
type VariablesOf<T extends Readonly<Record<string, FieldRow>>> = {
  [V in {
    [K in keyof T]: T[K] extends { variables: readonly (infer N extends string)[] } ? N : never;
  }[keyof T]]: {
    [K in keyof T]: T[K] extends { variables: readonly (infer N)[] }
      ? V extends N
        ? K
        : never
      : never;
  }[keyof T];
};

function variablesFrom<T extends Readonly<Record<string, FieldRow>>>(table: T): VariablesOf<T> {
  const variables: Record<string, string> = {};
  for (const [field, row] of Object.entries(table)) {
    for (const name of row.variables ?? []) variables[name] = field;
  }
  return Object.freeze(variables) as VariablesOf<T>;
}

/**
 * The {{variables}} of a composed delivery webhook (provider-interface.md 2.6), each with the
 * wire field it carries: the rows of DELIVERY_FIELD_TABLE that list one. The documentation's list
 * names `sent_time` and `submit_time` a second time as unix timestamps; by the payload those are
 * `sent_at` and `submit_at`, offered here by that name, and a `{{sent_time}}`/`{{submit_time}}`
 * holding unix digits is read as the unix field (see {@link UNIX_READINGS}).
 */
export const DELIVERY_VARIABLES = variablesFrom(DELIVERY_FIELD_TABLE);

/**
 * The {{variables}} of a composed call webhook: every call-report field, plus `id` (the call
 * docs' own example uses it) for the call's `mid`; Click2Call's own (`billing`, `status1`,
 * `status2`, `hangup_by`, `date`, `unixtime`) too.
 */
export const CALL_VARIABLES = variablesFrom(CALL_FIELD_TABLE);

export type DeliveryVariable = keyof typeof DELIVERY_VARIABLES;
export type CallVariable = keyof typeof CALL_VARIABLES;

/**
 * The documentation's second meaning of two delivery variables (2.6): `{{sent_time}}` and
 * `{{submit_time}}` "as a Unix timestamp". A value of digits only in one of them is the unix
 * field named here, not a wall-clock time.
 */
export const UNIX_READINGS = {
  sent_time: "sent_at",
  submit_time: "submit_at",
} as const satisfies Partial<Record<DeliveryVariable, DeliveryField>>;

/**
 * What a report must carry to be told apart from another (the receiver answers 400 without
 * it): every variable of `all`, and at least one of `anyOf`. A template that cannot carry
 * them is refused when it is registered or compiled, not report after report.
 */
export const IDENTITY_VARIABLES = {
  delivery: { all: ["id", "status"], anyOf: [] },
  call: { all: ["status"], anyOf: ["id", "mid", "webhook_id"] },
} as const satisfies Record<ReportType, { all: readonly string[]; anyOf: readonly string[] }>;

/** The variable table of a report type: variable name -> wire field. */
export function variablesOf(type: ReportType): Readonly<Record<string, string>> {
  return type === "call" ? CALL_VARIABLES : DELIVERY_VARIABLES;
}

/**
 * Each variable's value as the provider fills it from a report: a string, numbers in
 * decimal, an absent or null field as "".
 * @example
 * composedValues("call", { status: "ANSWER", to: 919876543210, mid: "m-1" });
 * // { id: "m-1", status: "ANSWER", to: "919876543210", mid: "m-1", duration: "", ... }
 */
export function composedValues(
  type: "delivery",
  payload: Readonly<DeliveryPayload>,
): Record<DeliveryVariable, string>;
export function composedValues(
  type: "call",
  payload: Readonly<CallPayload>,
): Record<CallVariable, string>;
export function composedValues(
  type: ReportType,
  payload: Readonly<DeliveryPayload> | Readonly<CallPayload>,
): Record<string, string>;
export function composedValues(
  type: ReportType,
  payload: Readonly<DeliveryPayload> | Readonly<CallPayload>,
): Record<string, string> {
  const fields = payload as Readonly<Record<string, unknown>>;
  const values: Record<string, string> = {};
  for (const [variable, field] of Object.entries(variablesOf(type))) {
    const value = Object.hasOwn(fields, field) ? fields[field] : undefined;
    values[variable] = value === undefined || value === null ? "" : String(value);
  }
  return values;
}
