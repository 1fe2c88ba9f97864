// A Bearer credential as a reply may show it (a header echoed, a proxy's log line): the scheme
// in any case, then a space (or %20), then the token68 characters RFC 6750 allows.
const BEARER = /\b(bearer)(\s+|%20)([\w\-.~+/]+=*)/giu;
// What tells a credential from a word of prose ("Bearer token", "a Bearer credential", the
// `Bearer realm=` of a 401): 8 characters or more, with a digit or a capital past the first.
// A random credential that long almost never lacks both; a word of a message never has them.
const CREDENTIAL = /^(?=.{8})(?=.*\d|.+[A-Z])/su;
// Text this short is ordinary text: hidden, it would garble every line and protect nothing.
const MIN_SECRET_LENGTH = 4;

/** `text` with every `Bearer <credential>` redacted, whoever's credential it is. */
function redactBearer(text: string): string {
  return text.replace(BEARER, (whole, scheme: string, gap: string, credential: string) =>
    CREDENTIAL.test(credential) ? `${scheme}${gap}[token]` : whole,
  );
}

/**
 * A function that replaces every occurrence of the secrets with "[token]", as sent and in the
 * forms a server may echo them in: any letter case (a message may upper- or lower-case it),
 * URL-encoded (a query string or form echoed back), and base64, standard or URL-safe, alone
 * or inside a longer base64 text (a Basic credential, a signed blob). Any `Bearer <credential>`
 * is redacted too, secret or not: one cut short, or another party's, is a credential all the
 * same. Secrets under 4 characters are skipped. The one redaction rule of the client and the
 * CLI: apply it before text is cut, so that a cut never leaves the start of a secret.
 */
export function redactor(secrets: string | readonly string[]): (text: string) => string {
  const list = (typeof secrets === "string" ? [secrets] : secrets).filter(
    (s) => s.length >= MIN_SECRET_LENGTH,
  );
  if (list.length === 0) return redactBearer;
  const caseless = new Set<string>();
  const exact = new Set<string>();
  for (const secret of list) {
    caseless.add(secret);
    // Percent-escapes may come back in either case; the letters around them too.
    caseless.add(encodeURIComponent(secret));
    caseless.add(new URLSearchParams({ s: secret }).toString().slice(2));
    for (const form of base64Forms(secret)) exact.add(form);
  }
  // Longest first: a longer form is never cut short by a shorter one it contains.
  const alternation = (forms: Set<string>) =>
    [...forms]
      .filter((form) => form.length > 0)
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join("|");
  const patterns = [new RegExp(alternation(caseless), "giu")];
  if (exact.size > 0) patterns.push(new RegExp(alternation(exact), "gu"));
  return (text) =>
    redactBearer(patterns.reduce((out, pattern) => out.replace(pattern, "[token]"), text));
}

/**
 * The base64 text the secret's bytes always encode to, whatever comes before or after them:
 * for each of the three alignments, the characters that depend on the secret's bytes alone,
 * in the standard and the URL-safe alphabet. Secrets under 4 bytes have no such run worth
 * searching for (it would match ordinary text).
 */
function base64Forms(secret: string): string[] {
  const bytes = new TextEncoder().encode(secret);
  if (bytes.length < 4) return [];
  const forms: string[] = [];
  for (let lead = 0; lead < 3; lead++) {
    const padded = new Uint8Array(lead + bytes.length);
    padded.set(bytes, lead);
    const encoded = btoa(String.fromCharCode(...padded));
    // Character i carries bits 6i..6i+5: it is the secret's alone from the first character
    // past the lead bytes to the last one that ends inside the secret.
    const from = Math.ceil((8 * lead) / 6);
    const to = Math.floor((8 * (lead + bytes.length)) / 6);
    const run = encoded.slice(from, to);
    forms.push(run, run.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return forms;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
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
