// The first half of a receiver: from a request to a valid report, or a refusal. Checks the
// method, then the credential, then reads the body under the size limit, decodes it by its
// Content-Type and validates it (a composed template's own keys first mapped back).

import { decodeBody } from "../body/decode-body.js";
import {
  type BodyContent,
  type BodyFormat,
  formatOf,
  mediaType,
  readsAsText,
} from "../body/media-type.js";
import { readBody } from "../body/read-body.js";
import { keepPromises, readComposed } from "../composed/read-composed.js";
import { isThenable, type MaybePromise } from "../promises.js";
import type { Config, Template } from "../receiver/receiver-options.js";
import type { ReceiverRequest } from "../receiver/types.js";
import {
  methodNotAllowed,
  tokenCheckFailed,
  tooLarge,
  unauthorized,
  unsupportedMediaType,
} from "../reply/replies.js";
import { boundedRaw } from "../report/bounded-raw.js";
import { parseWith } from "../report/parse-report.js";
import { wallClockReader } from "../report/parse-wall-clock.js";
import type { Report } from "../report/schemas.js";
import type { BearerResult } from "./check-bearer.js";
import type { RequestContext } from "./context.js";
import { getHeader } from "./headers.js";

/**
 * `read(request, method)`: the report, or a promise of it while a body is still to be read or
 * a verifier function decides. Throws (or rejects with) a ReportkitError for a refusal.
 */
export function reportReader(
  config: Pick<
    Config,
    "template" | "check" | "credentialHeader" | "limit" | "timeZone" | "journal" | "bodyTimeoutMs"
  >,
): (request: ReceiverRequest, ctx: RequestContext) => MaybePromise<Report> {
  const { template, check, credentialHeader, limit, bodyTimeoutMs } = config;
  // The failure journal keeps a refused or failed report's body: only then is it held on.
  const keepBody = config.journal !== undefined;
  const readWallClock = wallClockReader(config.timeZone);
  const allowed = template?.method ?? "POST";

  // The pipeline stays synchronous until something really is asynchronous (a body still to
  // be read, a verifier function): an await per stage would cost more than the parse.

  function read(request: ReceiverRequest, ctx: RequestContext): MaybePromise<Report> {
    if (ctx.method !== allowed) throw methodNotAllowed(ctx.method, allowed);
    const authenticating = authenticate(request);
    if (authenticating === undefined) {
      ctx.authenticated = true;
      return afterAuthentication(request, ctx);
    }
    return authenticating.then(() => {
      ctx.authenticated = true;
      return afterAuthentication(request, ctx);
    });
  }

  /** Undefined once authenticated; a promise while a verifier function decides. */
  function authenticate(request: ReceiverRequest): Promise<void> | undefined {
    if (check === undefined) return;
    const result = check(getHeader(request.headers, credentialHeader));
    if (isThenable(result)) return result.then(requireOk, verifierFailed);
    requireOk(result);
  }

  function requireOk(result: BearerResult): void {
    if (result !== "ok") throw unauthorized(result, credentialHeader);
  }

  function afterAuthentication(
    request: ReceiverRequest,
    ctx: RequestContext,
  ): MaybePromise<Report> {
    return template === undefined
      ? readPayload(request, ctx, "json", parsed)
      : receiveComposed(request, ctx, template);
  }

  function receiveComposed(
    request: ReceiverRequest,
    ctx: RequestContext,
    compiled: Template,
  ): MaybePromise<Report> {
    const fromContent = (content: unknown): Report => {
      const { payload, raw } = readComposed(compiled, request.url, content);
      const report = parsed(payload, compiled.type);
      (report as { raw: Record<string, unknown> }).raw = boundedRaw(raw, report.warnings);
      keepPromises(compiled, report as unknown as Record<string, unknown>);
      return report;
    };
    return compiled.readsBody
      ? readPayload(request, ctx, compiled.format, fromContent)
      : fromContent(undefined);
  }

  /** Reads and decodes the body, then hands it to `next` in the same step (one await, not three). */
  function readPayload<T>(
    request: ReceiverRequest,
    ctx: RequestContext,
    fallback: BodyFormat,
    next: (payload: unknown) => T,
  ): MaybePromise<T> {
    const contentType = getHeader(request.headers, "content-type");
    const type = mediaType(contentType);
    const format = type === "" ? fallback : formatOf(type);
    if (format === undefined) throw unsupportedMediaType(type);
    const { body } = request;
    ctx.bodyReadBegun = true;
    let content: BodyContent | Promise<BodyContent>;
    if (typeof body === "string" || body instanceof Uint8Array) {
      // Text or bytes already in hand are measured exactly by readBody.
      content = readBody(body, limit);
    } else {
      // A body still to be read is refused on its declared size before a byte is read.
      const declared = getHeader(request.headers, "content-length");
      if (Number(declared) > limit) throw tooLarge(limit);
      content = readBody(body, limit, declared, readsAsText(contentType), bodyTimeoutMs);
    }
    // No closure on the usual path, where the body is already in hand.
    if (isThenable(content)) {
      return content.then((read) => {
        if (keepBody) ctx.body = read;
        return next(decodeBody(read, format, contentType));
      });
    }
    if (keepBody) ctx.body = content;
    return next(decodeBody(content, format, contentType));
  }

  function parsed(payload: unknown, kind?: "delivery" | "call"): Report {
    const result = parseWith(payload, readWallClock, kind);
    if (!result.ok) throw result.error;
    return result.report;
  }

  return read;
}

function verifierFailed(cause: unknown): never {
  throw tokenCheckFailed(cause);
}
