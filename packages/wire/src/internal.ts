// @reportkit/wire/internal: small helpers reportkit's own packages share, so that each is
// defined once (core, the client, the CLI and the sandbox import them). Runtime-neutral, as the
// rest of wire: no `node:` import. Not part of the user API: the main entry (index.ts) is.
export { isRecord } from "./is-record.js";
export { type BodyChunk, type CappedBody, concatBytes, readCapped } from "./read-capped.js";
export {
  isSecretKey,
  maskDigits,
  printable,
  REDACTED,
  redactQuery,
  redactUrl,
  withoutCredentials,
} from "./redact-text.js";
export { zoneFormatter } from "./zone-formatter.js";
