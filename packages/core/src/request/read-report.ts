// The first half of a receiver: from a request to a valid report, the answer to the webhook's
// verification, or a refusal. Checks the method, then the secret, then reads the body under
// the size limit, decodes it by its Content-Type, answers it if it is the verification, and
// validates it (a composed template's own keys first mapped back).
import { andThen, isThenable, type MaybePromise } from "../async/maybe-promise.js";
import type { BodyContent } from "../body/classify-body.js";
import { decodeBody } from "../body/decode-body.js";
import { type BodyFormat, formatOf, mediaType, readsAsText } from "../body/media-type.js";
import { readBody } from "../body/read-body.js";
import { keepPromises, readComposed } from "../composed/read-composed.js";
import type { Config, Template } from "../receiver/validate-options.js";
import {
  methodNotAllowed,
  ReportkitError,
  tokenCheckFailed,
  tooLarge,
  unauthorized,
  unsupportedMediaType,
} from "../reply/errors.js";
import { boundedRaw } from "../report/bounded-raw.js";
import { parseWith } from "../report/parse-report.js";
import { wallClockReader } from "../report/parse-wall-clock.js";
import type { Report } from "../report/schemas.js";
import { Answered, NOT_ANSWERED, type Verification } from "./challenge.js";
import type { BearerResult } from "./check-bearer.js";
import type { RequestState } from "./request-state.js";

/**
 * `read(request)`: the report (or the verification's answer), or a promise of it while a body
 * is still to be read or a verifier function decides. Throws (or rejects with) a
 * ReportkitError for a refusal.
 */
export function reportReader(
  config: Pick<
    Config,
    "template" | "credential" | "limit" | "timeZone" | "journal" | "bodyTimeoutMs"
  >,
  verification: Verification | undefined,
): (request: RequestState) => MaybePromise<Report | Answered> {
  const { template, credential, limit, bodyTimeoutMs } = config;
  const { check, header: credentialHeader } = credential;
  // The failure journal keeps a refused or failed report's body: only then is it held on.
  const keepBody = config.journal !== undefined;
  const readWallClock = wallClockReader(config.timeZone);
  const allowed = template?.method ?? "POST";
  const where =
    credentialHeader === "authorization"
      ? "an Authorization: Bearer <secret> header"
      : `the ${credentialHeader} header`;

  function read(request: RequestState): MaybePromise<Report | Answered> {
    // The verification is a POST whatever method a composed template's reports come with.
    const verifyOnly = request.method !== allowed;
    if (verifyOnly && (request.method !== "POST" || verification === undefined)) {
      throw methodNotAllowed(request.method, allowed);
    }
    if (check === undefined) return authenticated(request, verifyOnly);
    const result = check(request.header(credentialHeader), request.env);
    if (!isThenable(result)) return afterCheck(request, result, verifyOnly);
    return (result as Promise<BearerResult>).then(
      (ready) => afterCheck(request, ready, verifyOnly),
      (cause: unknown) => {
        throw tokenCheckFailed(cause);
      },
    );
  }

  function afterCheck(
    request: RequestState,
    result: BearerResult,
    verifyOnly: boolean,
  ): MaybePromise<Report | Answered> {
    if (result === "ok") return authenticated(request, verifyOnly);
    const refusal = unauthorized(result, where);
    // Without a secret, only the verification may go on: its body is read to see if it is one.
    if (verification === undefined || !verification.withoutSecret(request)) throw refusal;
    return onlyIfVerification(request, refusal);
  }

  /**
   * The answer to a request that may only be the verification (no secret came with it, or its
   * method is not the reports'): its body is read as JSON to see. Whatever else goes wrong with
   * it, its answer is `refusal` (401, 405): nothing of the body is told, and nothing is kept.
   */
  function onlyIfVerification(
    request: RequestState,
    refusal: ReportkitError,
  ): MaybePromise<Answered> {
    const refuse = (error: unknown): never => {
      // A body too large or too slow keeps its own reply: it closes the connection, whose rest
      // of a body is unread.
      const closes = error instanceof ReportkitError && error.headers.connection === "close";
      throw request.verification || closes ? error : refusal;
    };
    let answered: MaybePromise<Answered>;
    try {
      answered = readPayload(request, "json", (_, body) =>
        andThen(verify(request, body), (found) => {
          if (found !== undefined) return found;
          throw refusal;
        }),
      );
    } catch (error) {
      return refuse(error);
    }
    return andThen(answered, (found) => found, refuse);
  }

  function authenticated(
    request: RequestState,
    verifyOnly: boolean,
  ): MaybePromise<Report | Answered> {
    request.authenticated = true;
    if (verifyOnly) return onlyIfVerification(request, methodNotAllowed(request.method, allowed));
    if (template === undefined) return readPayload(request, "json", standard);
    return template.readsBody
      ? readPayload(request, template.format, composed)
      : fromComposed(request, template, undefined);
  }

  // Named functions, not closures: a report's usual path (its body in hand, no verification
  // in it) allocates none of them (see async/maybe-promise.ts).

  /** A standard push's decoded body: the verification's answer, or the report. */
  function standard(request: RequestState, body: unknown): MaybePromise<Report | Answered> {
    if (verification === undefined) return parsed(request, body);
    const answered = verify(request, body);
    if (answered === undefined) return parsed(request, body);
    return andThen(answered, (found) => found ?? parsed(request, body));
  }

  /** A composed template's decoded body: the verification's answer, or the report. */
  function composed(request: RequestState, body: unknown): MaybePromise<Report | Answered> {
    const compiled = template as Template;
    if (verification === undefined) return fromComposed(request, compiled, body);
    const answered = verify(request, body);
    if (answered === undefined) return fromComposed(request, compiled, body);
    return andThen(answered, (found) => found ?? fromComposed(request, compiled, body));
  }

  function fromComposed(request: RequestState, compiled: Template, content: unknown): Report {
    const { payload, raw } = readComposed(compiled, request.url, content);
    const report = parsed(request, payload, compiled.type);
    (report as { raw: Record<string, unknown> }).raw = boundedRaw(raw, report.warnings);
    keepPromises(compiled, report as unknown as Record<string, unknown>);
    return report;
  }

  /** The verification's answer; undefined for a body that is none. @throws its 401 */
  function verify(
    request: RequestState,
    body: unknown,
  ): MaybePromise<Answered | undefined> | undefined {
    const step = (verification as Verification).step(request, body);
    if (step === undefined) return undefined;
    return andThen(step, (outcome) => {
      if (outcome === NOT_ANSWERED) return undefined;
      if (outcome instanceof Answered) return outcome;
      throw outcome;
    });
  }

  /** Reads and decodes the body, then hands it to `next` in the same step (one await, not three). */
  function readPayload<T>(
    request: RequestState,
    fallback: BodyFormat,
    next: (request: RequestState, payload: unknown) => MaybePromise<T>,
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
    if (isThenable(content)) {
      return content.then((read) => decoded(request, read, format, contentType, next));
    }
    return decoded(request, content, format, contentType, next);
  }

  function decoded<T>(
    request: RequestState,
    content: BodyContent,
    format: BodyFormat,
    contentType: string | undefined,
    next: (request: RequestState, payload: unknown) => MaybePromise<T>,
  ): MaybePromise<T> {
    if (keepBody) request.body = content;
    return next(request, decodeBody(content, format, contentType));
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
