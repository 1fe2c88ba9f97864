// The first half of a receiver: from a request to a valid report, or a refusal. Checks the
// method, then the credential, then reads the body under the size limit, decodes it by its
// Content-Type and validates it (a composed template's own keys first mapped back).
import { andThen, isThenable, type MaybePromise } from "../async/maybe-promise.js";
import type { BodyContent } from "../body/classify-body.js";
import { decodeBody } from "../body/decode-body.js";
import { type BodyFormat, formatOf, mediaType, readsAsText } from "../body/media-type.js";
import { readBody } from "../body/read-body.js";
import { keepPromises, readComposed } from "../composed/read-composed.js";
import type { Config } from "../receiver/validate-options.js";
import {
  methodNotAllowed,
  tokenCheckFailed,
  tooLarge,
  unauthorized,
  unsupportedMediaType,
} from "../reply/errors.js";
import { boundedRaw } from "../report/bounded-raw.js";
import { parseWith } from "../report/parse-report.js";
import { wallClockReader } from "../report/parse-wall-clock.js";
import type { Report } from "../report/schemas.js";
import type { BearerResult } from "./check-bearer.js";
import type { RequestState } from "./request-state.js";

/**
 * `read(request)`: the report, or a promise of it while a body is still to be read or a
 * verifier function decides. Throws (or rejects with) a ReportkitError for a refusal.
 */
export function reportReader(
  config: Pick<
    Config,
    "template" | "credential" | "limit" | "timeZone" | "journal" | "bodyTimeoutMs"
  >,
): (request: RequestState) => MaybePromise<Report> {
  const { template, credential, limit, bodyTimeoutMs } = config;
  const { check, header: credentialHeader } = credential;
  // The failure journal keeps a refused or failed report's body: only then is it held on.
  const keepBody = config.journal !== undefined;
  const readWallClock = wallClockReader(config.timeZone);
  const allowed = template?.method ?? "POST";
  const where =
    credentialHeader === "authorization"
      ? "an Authorization: Bearer <token> header"
      : `the ${credentialHeader} header`;

  function read(request: RequestState): MaybePromise<Report> {
    if (request.method !== allowed) throw methodNotAllowed(request.method, allowed);
    if (check === undefined) return authenticated(request);
    const result = check(request.header(credentialHeader), request.env);
    if (!isThenable(result)) {
      requireOk(result);
      return authenticated(request);
    }
    return (result as Promise<BearerResult>).then(
      (ready) => {
        requireOk(ready);
        return authenticated(request);
      },
      (cause: unknown) => {
        throw tokenCheckFailed(cause);
      },
    );
  }

  function requireOk(result: BearerResult): void {
    if (result !== "ok") throw unauthorized(result, where);
  }

  function authenticated(request: RequestState): MaybePromise<Report> {
    request.authenticated = true;
    if (template === undefined)
      return readPayload(request, "json", (payload) => parsed(request, payload));
    const compiled = template;
    const fromContent = (content: unknown): Report => {
      const { payload, raw } = readComposed(compiled, request.url, content);
      const report = parsed(request, payload, compiled.type);
      (report as { raw: Record<string, unknown> }).raw = boundedRaw(raw, report.warnings);
      keepPromises(compiled, report as unknown as Record<string, unknown>);
      return report;
    };
    return compiled.readsBody
      ? readPayload(request, compiled.format, fromContent)
      : fromContent(undefined);
  }

  /** Reads and decodes the body, then hands it to `next` in the same step (one await, not three). */
  function readPayload<T>(
    request: RequestState,
    fallback: BodyFormat,
    next: (payload: unknown) => T,
  ): MaybePromise<T> {
    const contentType = request.header("content-type");
    const type = mediaType(contentType);
    const format = type === "" ? fallback : formatOf(type);
    if (format === undefined) throw unsupportedMediaType(type);
    const { body } = request;
    request.bodyReadBegun = true;
    let content: MaybePromise<BodyContent>;
    if (body.form === "text" || body.form === "bytes") {
      // Text or bytes already in hand are measured exactly by readBody.
      content = readBody(body, limit);
    } else {
      // A body still to be read is refused on its declared size before a byte is read.
      const declared = request.header("content-length");
      if (Number(declared) > limit) throw tooLarge(limit);
      content = readBody(body, limit, declared, readsAsText(contentType), bodyTimeoutMs);
    }
    return andThen(content, (read) => {
      if (keepBody) request.body = read;
      return next(decodeBody(read, format, contentType));
    });
  }

  function parsed(request: RequestState, payload: unknown, kind?: "delivery" | "call"): Report {
    const result = parseWith(payload, readWallClock, kind);
    if (result.ok) return result.report;
    // Refused as it is, but known for what it is: the journal says which kind it was.
    request.kind = result.kind;
    throw result.error;
  }

  return read;
}
