/**
 * The structure of a JSON value: keys and value types, array items merged. Two responses with
 * the same shape differ only in their values.
 */
export function shapeOf(value: unknown): unknown {
  if (value === null) return "null";
  if (Array.isArray(value)) {
    const items = value.map(shapeOf);
    return items.length === 0 ? [] : [items[0]];
  }
  if (typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shapeOf(v)]),
    );
  }
  return typeof value;
}

/** The structure of a JSON value: its keys in order and the type of each leaf (the first item of an array). */
export function orderedShapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [orderedShapeOf(value[0])];
  if (value === null) return "null";
  if (typeof value === "object") {
    return Object.entries(value as object).map(([key, item]) => [key, orderedShapeOf(item)]);
  }
  return typeof value;
}
