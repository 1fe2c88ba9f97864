/**
 * Whether a value is a plain record of keys (an object, not null, not an array): the one
 * test reportkit's packages use before reading keys off a parsed body, a template or a reply.
 * @example
 * isRecord(JSON.parse('{"id":"a1"}')); // true
 * isRecord([1, 2]); // false
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
