// What a store keeps for a key (a report's dedupe key in the Postgres inbox or in Redis, a
// journal entry's key, recordStatus's message id): any string a store is handed, a user's
// `dedupeKey` may build one from anything. Postgres `text` cannot hold NUL, and a btree row
// holds at most about 2.7 KB; Postgres and Redis are sent UTF-8, in which every lone surrogate
// becomes U+FFFD, so "sur\ud800" and "sur\udbff" would be one key. Such a key is kept as the
// SHA-256 of its exact code units instead: never refused, never cut short, never merged with
// another. Every other key is kept as it is, so no key a store holds today changes.
// Runtime-neutral (WebCrypto), as the rest of wire.

// What starts a key kept by its hash. A key that starts with it is hashed too, so that no key
// is ever taken for another's hash.
const HASHED_PREFIX = "key-sha256:";
const HASHED = /^key-sha256:[0-9a-f]{64}$/;
/** The longest key kept as it is, in UTF-8 bytes: well under Postgres's btree row limit. */
export const MAX_KEY_BYTES = 1024;

const utf8 = new TextEncoder();
// A surrogate without its other half: what UTF-8 cannot carry.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether every store holds `key` as it is: see `storedKey`. */
function keptAsIs(key: string): boolean {
  if (key.startsWith(HASHED_PREFIX) || key.includes("\0") || LONE_SURROGATE.test(key)) {
    return false;
  }
  // At most 3 UTF-8 bytes per UTF-16 code unit: most keys need no count.
  return key.length * 3 <= MAX_KEY_BYTES || utf8.encode(key).length <= MAX_KEY_BYTES;
}

/**
 * The key a store keeps for `key`: the key itself, unless it holds NUL or a lone surrogate, is
 * longer than `MAX_KEY_BYTES` in UTF-8, or starts with "key-sha256:"; then "key-sha256:" and
 * the hex SHA-256 of its WTF-8 bytes (UTF-8, a lone surrogate written as its own three bytes):
 * for a well-formed key, `encode(sha256(convert_to(key, 'UTF8')), 'hex')` in Postgres.
 *
 * @example
 * await storedKey("delivery:b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1:DELIVRD"); // the same
 * await storedKey("x".repeat(3000)); // "key-sha256:" + 64 hex digits
 */
export async function storedKey(key: string): Promise<string> {
  if (keptAsIs(key)) return key;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", wtf8(key)));
  return HASHED_PREFIX + Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The key a store keeps for a key as a journal listed it (already kept: a hashed key stays as
 * it is) or as a report has it (`storedKey`): what a journal's `resolve` looks up.
 */
export function listedKey(key: string): Promise<string> {
  return HASHED.test(key) ? Promise.resolve(key) : storedKey(key);
}

/** `text` as UTF-8, each lone surrogate as the three bytes of its code point: lossless. */
function wtf8(text: string): Uint8Array<ArrayBuffer> {
  const bytes: number[] = [];
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000) {
      bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    } else {
      bytes.push(
        0xf0 | (code >> 18),
        0x80 | ((code >> 12) & 0x3f),
        0x80 | ((code >> 6) & 0x3f),
        0x80 | (code & 0x3f),
      );
    }
  }
  return new Uint8Array(bytes);
}
