// What recordStatus keeps of a delivery report besides its status: the columns of
// MESSAGE_DETAIL_COLUMNS, their values from the report, and how the statement writes them.
import { classifyDeliveryStatus, type DeliveryReport } from "@reportkit/core";
import { int4, pgText } from "./ledger-arguments.js";
import { MESSAGE_DETAIL_COLUMNS } from "./ledger-schema.js";

type DetailColumn = (typeof MESSAGE_DETAIL_COLUMNS)[number]["name"];

// The row's status's own columns: they follow the status, and change only with it.
const OF_THE_STATUS: ReadonlySet<DetailColumn> = new Set(["reason", "transient"]);

/**
 * The detail columns' values of `report`, in MESSAGE_DETAIL_COLUMNS's order. `reason` and
 * `transient` are the status table's for a status it knows (a report an older receiver queued
 * may not carry them), else the report's own.
 */
export function detailValues(report: DeliveryReport): unknown[] {
  const row = classifyDeliveryStatus(report.status);
  const values: Record<DetailColumn, unknown> = {
    reason: row.known ? row.reason : (report.reason ?? row.reason),
    transient: row.known ? row.transient : (report.transient ?? row.transient),
    sent_at: report.sentAt,
    submitted_at: report.submittedAt,
    delivered_at: report.deliveredAt,
    credits: report.credits,
    units: int4(report.units),
    provider: report.provider,
    provider_code: report.providerCode,
    region: report.region,
    region_code: report.regionCode,
    location: report.location,
    location_code: report.locationCode,
    custom: report.custom,
    custom1: report.custom1,
    custom2: report.custom2,
  };
  return MESSAGE_DETAIL_COLUMNS.map(({ name }) => {
    const value = values[name] ?? null;
    return typeof value === "string" ? pgText(value) : value;
  });
}

/** The detail columns, for the INSERT's column list. */
export const DETAIL_NAMES = MESSAGE_DETAIL_COLUMNS.map(({ name }) => name).join(", ");

/** Their placeholders, numbered from `first`, each cast to its column's type. */
export function detailPlaceholders(first: number): string {
  return MESSAGE_DETAIL_COLUMNS.map(({ type }, i) => `$${first + i}::${type}`).join(", ");
}

/**
 * The ON CONFLICT's assignments: the status's columns as the report says; the message's own
 * (times, operator, credits, tags) as the report says, or as recorded when it says nothing.
 */
export const DETAIL_UPDATES = MESSAGE_DETAIL_COLUMNS.map(({ name }) =>
  OF_THE_STATUS.has(name)
    ? `${name} = EXCLUDED.${name}`
    : `${name} = COALESCE(EXCLUDED.${name}, recorded.${name})`,
).join(", ");
