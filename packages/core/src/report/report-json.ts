import { classifyCallStatus, classifyDeliveryStatus } from "@reportkit/wire";
import { isRecord } from "@reportkit/wire/internal";
import { z } from "zod";
import { REPORT_SCHEMAS, type Report } from "./schemas.js";

// Which fields are dates (revived from JSON's ISO strings), and which are nullable (null when a
// report queued by an earlier version lacks them), by the report schemas.
const FORMS = Object.fromEntries(
  Object.entries(REPORT_SCHEMAS).map(([kind, schema]) => {
    const nullable = Object.entries(schema.shape).filter(([, f]) => f instanceof z.ZodNullable);
    const dates = nullable.filter(([, f]) => (f as z.ZodNullable).unwrap() instanceof z.ZodDate);
    const names = (fields: [string, unknown][]) => fields.map(([name]) => name);
    return [kind, { schema, dateFields: names(dates), nullableFields: names(nullable) }];
  }),
) as unknown as Record<
  Report["type"],
  { schema: z.ZodType<Report>; dateFields: readonly string[]; nullableFields: readonly string[] }
>;

/**
 * Turns the JSON form of a report (from a queue or a log) back into the typed `Report`, its dates
 * revived, checked against the report schema. @throws TypeError naming the field that is wrong
 *
 * @example
 * const json = JSON.parse(JSON.stringify(report));
 * const again = reportFromJson(json); // again.deliveredAt instanceof Date
 */
export function reportFromJson(json: unknown): Report {
  if (!isRecord(json)) {
    throw new TypeError("reportkit: reportFromJson needs the JSON object of a report.");
  }
  const type = json.type;
  if (typeof type !== "string" || !Object.hasOwn(FORMS, type)) {
    throw new TypeError(
      `reportkit: reportFromJson: \`type\` must be "delivery", "call", "unsubscribe" or "event", got ${JSON.stringify(type)}.`,
    );
  }
  const { schema, dateFields, nullableFields } = FORMS[type as Report["type"]];
  const revived: Record<string, unknown> = { ...json };
  for (const name of nullableFields) if (!Object.hasOwn(revived, name)) revived[name] = null;
  for (const name of dateFields) {
    const value = revived[name];
    if (typeof value === "string" || typeof value === "number") revived[name] = new Date(value);
  }
  // A report serialised before reports carried `final`, `outcome`, `reason` and `transient` (a
  // job queued by an older receiver): they follow from its status.
  if ((type === "delivery" || type === "call") && typeof revived.status === "string") {
    const found = (type === "delivery" ? classifyDeliveryStatus : classifyCallStatus)(
      revived.status,
    );
    revived.final ??= found.final;
    revived.outcome ??= found.outcome;
    revived.transient ??= found.transient;
    if (type === "delivery") revived.reason ??= found.reason;
  }
  const result = schema.safeParse(revived);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue === undefined ? "" : ` at \`${issue.path.join(".")}\``;
    throw new TypeError(
      `reportkit: reportFromJson: not the JSON form of a ${type} report${where}: ${issue?.message ?? "invalid"}.`,
    );
  }
  return result.data;
}
