// The webhook's verification (field-notes.md): the provider POSTs `<uri>?token=<validation key>`
// with `{"validation_key", "challenge"}`, and verifies the webhook on a 200 whose JSON holds the
// challenge. Recognised once the body is decoded: never a report, it runs no handler.
import { isRecord } from "@reportkit/wire/internal";
import type { ReceiverRequest, ReceiverResponse } from "../base/types.js";
import { wrongValidationKey } from "../reply/errors.js";
import { type Access, type Credential, tokenParameter } from "./authenticate.js";

/** What a challenge responder of your own sees of a request (its method upper case). */
export interface ChallengeRequest extends Pick<ReceiverRequest, "method" | "url" | "headers"> {
  /** The body as decoded: a JSON value (lenient: trailing commas), or a form's fields. */
  readonly body: unknown;
  /** Whether it carried a secret; false when it carried only the verification token. */
  readonly authenticated: boolean;
}

/** A challenge's answer; `body` defaults to "", `headers` to none. */
export interface ChallengeReply {
  status: number;
  body?: string;
  headers?: Readonly<Record<string, string>>;
}

/** A responder of your own: a verification's answer, or undefined (the request goes on). */
export type ChallengeResponder = (
  request: ChallengeRequest,
) => ChallengeReply | undefined | Promise<ChallengeReply | undefined>;

const JSON_REPLY = Object.freeze({
  "content-type": "application/json",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
});

/**
 * The verification's answer, or undefined when the body is none (a report, then).
 * @throws ReportkitError 401 for a validation key that is not the receiver's token
 */
export async function answerHandshake(
  request: ReceiverRequest,
  body: unknown,
  access: Access,
  { credential, respond }: { credential: Credential; respond: ChallengeResponder | undefined },
): Promise<ReceiverResponse | undefined> {
  if (respond !== undefined) {
    const { method, url, headers } = request;
    const reply = await respond({ method, url, headers, body, authenticated: access === "secret" });
    return reply === undefined ? undefined : normalize(reply);
  }
  // A string `challenge` with a string `validation_key`, or with a `token` query parameter.
  if (!isRecord(body) || typeof body.challenge !== "string") return undefined;
  const keys = [tokenParameter(request.url), body.validation_key].filter(
    (key): key is string => typeof key === "string",
  );
  if (keys.length === 0) return undefined;
  const verify = credential.verifier(request.env);
  // Without a verification token, the request's secret is what vouches for it.
  if (verify !== undefined) {
    // Either key will do: the provider's own sample carries two that differ ("9012XX" in the
    // query, "9012XXXX" in the body). Both are compared, in constant time.
    let known = false;
    for (const key of keys) known = verify(key) || known;
    if (!known) throw wrongValidationKey();
  }
  return { status: 200, headers: JSON_REPLY, body: JSON.stringify({ challenge: body.challenge }) };
}

function normalize(reply: ChallengeReply): ReceiverResponse {
  const { status, body, headers } = (reply ?? {}) as Partial<ChallengeReply>;
  if (!Number.isInteger(status) || (status as number) < 200 || (status as number) > 599) {
    throw new TypeError(
      `reportkit: the \`verification.respond\` function returned status ${String(status)}; return { status: 200–599, body?, headers? } or undefined.`,
    );
  }
  return {
    status: status as number,
    headers: headers ?? {},
    body: typeof body === "string" ? body : "",
  };
}
