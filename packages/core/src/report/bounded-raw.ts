import type { ReportWarning } from "./schemas.js";

/**
 * How deep `report.raw` may nest: far beyond any real payload, far below where JSON.stringify or a
 * queue's serialiser run out of stack (a 64 KB body holds 32,000 nested arrays).
 */
const MAX_RAW_DEPTH = 64;

/**
 * `raw` without the fields nested deeper than MAX_RAW_DEPTH, a warning for each, so every report
 * a handler gets can be serialised; the same object when none is (the usual case).
 */
export function boundedRaw(
  raw: Record<string, unknown>,
  warnings: ReportWarning[],
): Record<string, unknown> {
  let kept: Record<string, unknown> | undefined;
  for (const key of Object.keys(raw)) {
    const value = raw[key];
    if (typeof value !== "object" || value === null || withinDepth(value, MAX_RAW_DEPTH)) continue;
    // A spread copies a "__proto__" own key as an own data property, as JSON.parse made it.
    kept ??= { ...raw };
    delete kept[key];
    warnings.push({
      field: key,
      message: `nested deeper than ${MAX_RAW_DEPTH} levels; dropped from raw so that the report can be serialised`,
    });
  }
  return kept ?? raw;
}

/** Whether `value` (at the first level) nests at most `levels` levels. Recursion ≤ `levels`. */
function withinDepth(value: object, levels: number): boolean {
  if (levels <= 0) return false;
  return Object.values(value).every(
    (item) => typeof item !== "object" || item === null || withinDepth(item, levels - 1),
  );
}
