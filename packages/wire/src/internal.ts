// @reportkit/wire/internal: small helpers reportkit's own packages share, so that each is
// defined once (core, the client, the CLI, the sandbox and the stores import them). Runtime-neutral, as the
// rest of wire: no `node:` import. Not part of the user API: the main entry (index.ts) is.
export { signedDateMs, utcMsOf } from "./date-time.js";
export { isRecord } from "./is-record.js";
export { type BodyChunk, type CappedBody, concatBytes, readCapped } from "./read-capped.js";
export {
  isSecretKey,
  maskDigits,
  printable,
  printableBlock,
  REDACTED,
  redactQuery,
  redactUrl,
  withoutCredentials,
} from "./redact-text.js";
export { listedKey, MAX_KEY_BYTES, storedKey } from "./stored-key.js";
export { wallClockText, zoneFormatter } from "./zone-formatter.js";
