/**
 * A function that replaces every occurrence of `secret`, in any letter case, with "[token]":
 * a server may echo the token upper- or lower-cased (in a message, a field error, a body).
 */
export function redactor(secret: string): (text: string) => string {
  const pattern = new RegExp(secret.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), "giu");
  return (text) => text.replace(pattern, "[token]");
}

/**
 * A copy of a parsed JSON value (or text) with the secret redacted from every string, keys
 * included. Non-JSON values are returned as they are.
 */
export function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty: a "__proto__" key stays an own data property, as JSON.parse made it.
      Object.defineProperty(out, redact(key), {
        value: redactDeep(item, redact),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
