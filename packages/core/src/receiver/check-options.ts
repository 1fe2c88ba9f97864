// A receiver's options, checked once at construction (base/attorney.ts) into its configuration.
// Options that contradict each other are refused rather than one of them dropped without a word.
import { type ComposedTemplate, PROVIDER_TIME_ZONE } from "@reportkit/wire";
import { isRecord } from "@reportkit/wire/internal";
import { hasMethods, type OptionReader, readOptions } from "../base/attorney.js";
import type { EnvRecord } from "../base/types.js";
import {
  type CompiledTemplate,
  compileTemplate,
  phoneKeysOf,
} from "../composed/compile-template.js";
import { receiverLog } from "../process/receiver-log.js";
import type { AnyHandler, KindHandlers } from "../process/run-handler.js";
import { secretMissing } from "../reply/errors.js";
import { defaultDedupeKey } from "../report/dedupe-key.js";
import { wallClockReader } from "../report/read-value.js";
import type { Report } from "../report/schemas.js";
import {
  type Credential,
  comparerOf,
  type SecretCheck,
  type SecretOption,
  secretCheck,
} from "../request/authenticate.js";
import type { DedupeStore } from "../store-kit/dedupe-store.js";
import { memoryDedupe } from "../store-kit/memory-dedupe.js";
import type { ReportQueue } from "../store-kit/report-queue.js";
import { credentialsOf, SECRET_ENV } from "./env.js";
import {
  type BodyOptions,
  type DedupeOptions,
  HANDLER_OPTIONS,
  type ReceiverOptions,
  type SecretInHeader,
  type VerificationOptions,
} from "./options.js";

/** The largest body a receiver takes unless `body.maxBytes` says otherwise. */
export const DEFAULT_MAX_BODY_BYTES = 65_536;
const DEFAULT_DEADLINE_MS = 8000;
const DEFAULT_BODY_TIMEOUT_MS = 5000;

export type Config = ReturnType<typeof checkOptions>;

/** For an adapter whose requests bring their environment: see `AdapterReceiverSettings`. */
export interface RequestEnvSecret {
  /** Where to set the secret, said in the 500 a request without one gets. */
  readonly whereToSet: string;
}

type Options = ReceiverOptions<ComposedTemplate | undefined>;

/** A receiver's options, checked. @throws TypeError saying which is wrong and how to fix it */
export function checkOptions(input: Options | undefined, requestEnv?: RequestEnvSecret) {
  const options = input === undefined ? {} : input;
  const read = readOptions<Options>("reportkit", options, {
    example: "createReceiver({ secret: process.env.REPORTKIT_SECRET, onDelivery })",
    known: [
      "secret",
      "verification",
      "body",
      "dedupe",
      "queue",
      "journal",
      "telemetry",
      "logger",
      "deadlineMs",
      "composed",
      "timeZone",
      ...Object.values(HANDLER_OPTIONS),
      "onError",
    ],
    renamed: {
      token: "pass `secret` (the webhook's secret)",
      auth: "`auth: false` is `secret: false`",
      header: "pass `secret: { value, header }`",
      verificationToken: "pass `verification: { token }`",
      challenge: "pass `verification: { respond }`, or `verification: false`",
      maxBodyBytes: "pass `body: { maxBytes }`",
      bodyTimeoutMs: "pass `body: { timeoutMs }`",
      dedupeKey: "pass `dedupe: { key }`",
    },
    hint: "Where the receiver is mounted (a path) is its adapter's option.",
  });
  const handlers: KindHandlers = {};
  for (const [kind, name] of Object.entries(HANDLER_OPTIONS) as [Report["type"], string][]) {
    const handler = read.callback(name as keyof Options) as AnyHandler | undefined;
    if (handler !== undefined) handlers[kind] = handler;
  }
  const onError = read.callback("onError");
  const template = templateOf(read, options, handlers);
  const queue = read.check(
    "queue",
    (q) => hasMethods(q, "enqueue"),
    "a report queue with an `enqueue(report, key)` method, such as `bullmqQueue({ connection })` from @reportkit/bullmq",
  );
  const { store, key } = dedupeOf(read, options, queue);
  if (queue !== undefined && Object.keys(handlers).length > 0) {
    throw new TypeError(
      "reportkit: give either `queue` (the receiver answers 202 and a worker runs the handlers: pass them to the queue's worker) or handlers, not both.",
    );
  }
  const journal = read.check(
    "journal",
    (j) => j === false || hasMethods(j, "record"),
    "a failure journal (an object with `record(entry)`), or `false` to keep nothing; by default the dedupe store's journal is used, where it has one",
  );
  const telemetry = read.check(
    "telemetry",
    (t) => hasMethods(t, "startReport", "refused"),
    "a Telemetry (`otelTelemetry()` from @reportkit/otel, or an object with `startReport` and `refused`)",
  );
  const logger = read.check(
    "logger",
    (l) => l === false || hasMethods(l, "warn", "error"),
    "an object with `warn` and `error` methods (console and pino have them), or `false`",
  );
  const deadlineMs =
    options.deadlineMs === false ? undefined : read.positiveMs("deadlineMs", DEFAULT_DEADLINE_MS);
  const body = read.group<BodyOptions>("body", {
    example: "body: { maxBytes: 1_048_576 }",
    known: ["maxBytes", "timeoutMs"],
  });
  const timeZone = read.string("timeZone", PROVIDER_TIME_ZONE, { nonEmpty: true });
  const verification = options.verification === false ? false : verificationOf(read);
  const token = verification === false ? undefined : verification.token;
  const { credential, secrets } = credentialOf(read, options, token, requestEnv);
  // A composed template whose own keys are the handshake's reads those bodies as its reports.
  const templateUsesHandshake =
    template?.sources.some(
      (s) => s.from !== "path" && (s.key === "challenge" || s.key === "validation_key"),
    ) === true;
  return {
    credential,
    /** Whether the provider's verification handshake (or `verification.respond`) is answered. */
    handshake:
      verification !== false && (verification.respond !== undefined || !templateUsesHandshake),
    respond: verification === false ? undefined : verification.respond,
    body: {
      maxBytes: body?.wholeNumber("maxBytes", DEFAULT_MAX_BODY_BYTES) ?? DEFAULT_MAX_BODY_BYTES,
      timeoutMs: body?.positiveMs("timeoutMs", DEFAULT_BODY_TIMEOUT_MS) ?? DEFAULT_BODY_TIMEOUT_MS,
    },
    dedupe: store,
    dedupeKey: key ?? defaultDedupeKey,
    queue,
    journal: journal === false ? undefined : (journal ?? store?.journal),
    telemetry,
    log: receiverLog(logger === undefined ? console : logger === false ? undefined : logger),
    deadlineMs,
    template,
    readWallClock: wallClockReader(timeZone),
    handlers,
    onError,
    /** What the failure journal must never keep. */
    redaction: { phoneKeys: phoneKeysOf(template), secrets },
  };
}

/** The composed template, compiled; refused where its kind's handler is missing. */
function templateOf(
  read: OptionReader<Options>,
  options: Options,
  handlers: KindHandlers,
): CompiledTemplate | undefined {
  if (options.composed === undefined) return undefined;
  const compiled = compileTemplate(options.composed);
  const name = compiled.type === "call" ? "onCall" : "onDelivery";
  if (handlers[compiled.type] === undefined && Object.keys(handlers).length > 0) {
    // Its reports would all be acknowledged unhandled: lost.
    throw read.refusal(
      "composed",
      `a template whose handler is given; it sends ${compiled.type} reports, give \`${name}\``,
    );
  }
  for (const kind of ["unsubscribe", "event"] as const) {
    if (handlers[kind] !== undefined) {
      throw new TypeError(
        `reportkit: a composed template sends ${compiled.type} reports only, so \`${HANDLER_OPTIONS[kind]}\` would never run: leave it out.`,
      );
    }
  }
  return compiled;
}

/** The dedupe store (memory by default, none in queue mode) and the key function. */
function dedupeOf(
  read: OptionReader<Options>,
  options: Options,
  queue: ReportQueue | undefined,
): { store: DedupeStore | undefined; key: ((report: Report) => string | undefined) | undefined } {
  let store: DedupeStore | false | undefined;
  let key: ((report: Report) => string | undefined) | undefined;
  if (isStore(options.dedupe) || options.dedupe === false) {
    store = options.dedupe;
  } else {
    const group = read.group<DedupeOptions>("dedupe", {
      example: "dedupe: { store: redisDedupe({ connection }), key: (report) => …}",
      known: ["store", "key"],
    });
    store = group?.check(
      "store",
      (s) => s === false || isStore(s),
      "a dedupe store (`memoryDedupe()`, `redisDedupe()` from @reportkit/redis, `postgresInbox()` from @reportkit/postgres, or an object with leaseMs, claim, complete and release), or `false` to turn deduplication off",
    );
    key = group?.callback("key");
  }
  if (queue === undefined)
    return { store: store === false ? undefined : (store ?? memoryDedupe()), key };
  if (store !== undefined && store !== false) {
    throw new TypeError(
      "reportkit: in queue mode the queue deduplicates (a report's job id is its dedupe key, so a retry adds nothing), and a dedupe store would never be asked: leave `dedupe` out, or give only `dedupe: { key }`.",
    );
  }
  return { store: undefined, key };
}

function isStore(value: unknown): value is DedupeStore {
  if (!hasMethods(value, "claim", "complete", "release")) return false;
  const store = value as Partial<DedupeStore>;
  return (
    Number.isFinite(store.leaseMs) &&
    (store.leaseMs as number) > 0 &&
    (["scope", "ping", "close"] as const).every(
      (name) => store[name] === undefined || typeof store[name] === "function",
    )
  );
}

// ---- The credential ----------------------------------------------------------------------

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

function verificationOf(read: OptionReader<Options>): VerificationOptions {
  const group = read.group<VerificationOptions>("verification", {
    example: "verification: { token: process.env.REPORTKIT_VERIFICATION_TOKEN }",
    known: ["token", "respond"],
  });
  return {
    respond: group?.callback("respond"),
    token: group?.check(
      "token",
      (t) => typeof t === "string" && t !== "" && t === t.trim(),
      `the webhook's token as the provider has it (the "validation key" its verification request carries), a string without whitespace around it`,
    ),
  };
}

/** How requests are authenticated, and the secrets a journal must never keep. */
function credentialOf(
  read: OptionReader<Options>,
  options: Options,
  token: string | undefined,
  requestEnv: RequestEnvSecret | undefined,
): { credential: Credential; secrets: string[] } {
  const verifier = verifierOf(token, requestEnv !== undefined);
  if (options.secret === false) {
    return {
      credential: { header: "authorization", bearer: true, check: undefined, verifier },
      secrets: [],
    };
  }
  // `{ value, header }`: the secret in a header of its own.
  const inHeader = isRecord(options.secret)
    ? read.group<SecretInHeader>("secret", {
        example: 'secret: { value: process.env.REPORTKIT_SECRET, header: "x-api-key" }',
        known: ["value", "header"],
      })
    : undefined;
  const headerWanted = 'a header name such as "x-api-key"';
  const header = inHeader?.check(
    "header",
    (h) => typeof h === "string" && HEADER_NAME.test(h.toLowerCase()),
    headerWanted,
  );
  if (inHeader !== undefined && header === undefined)
    throw inHeader.refusal("header", headerWanted);
  const name = header === undefined ? "authorization" : header.toLowerCase();
  const bearer = header === undefined;
  const secret: unknown = isRecord(options.secret) ? options.secret.value : options.secret;
  const checkOf = (value: unknown): SecretCheck => {
    validateSecret(value, bearer);
    return secretCheck(value as SecretOption, bearer ? undefined : name);
  };
  // Where requests bring their environment and no option gives the secret, each request's: none
  // there is a configuration problem, 500, which the provider retries.
  const check: SecretCheck =
    secret !== undefined || requestEnv === undefined
      ? checkOf(secret)
      : (value, env) => {
          const fromEnv = credentialsOf(env).secret;
          if (fromEnv === undefined) throw secretMissing(SECRET_ENV, requestEnv.whereToSet);
          return checkOf(fromEnv)(value, env);
        };
  const secrets = typeof secret === "string" ? [secret] : Array.isArray(secret) ? [...secret] : [];
  if (token !== undefined && secrets.includes(token)) {
    throw new TypeError(
      "reportkit: `verification.token` is the webhook's secret: the verification request carries it in its URL (`?token=`), where logs and proxies keep it. Give the webhook's token (its validation key), which differs from the secret.",
    );
  }
  return { credential: { header: name, bearer, check, verifier }, secrets };
}

/** The verification token's constant-time check: the option's, else the request environment's. */
function verifierOf(token: string | undefined, perRequest: boolean): Credential["verifier"] {
  const equal = token === undefined ? undefined : comparerOf(token);
  return (env: EnvRecord | undefined) => {
    const fromEnv = perRequest ? credentialsOf(env).verificationToken : undefined;
    return equal ?? (fromEnv === undefined ? undefined : comparerOf(fromEnv));
  };
}

function validateSecret(secret: unknown, bearer: boolean): void {
  const hint = `Pass the webhook's secret, the bearer of every push (\`secret\`, or the ${SECRET_ENV} environment variable where the adapter reads it), several during a rotation, or a function; or \`secret: false\` to accept unauthenticated requests (not recommended).`;
  if (secret === undefined || secret === null) {
    throw new TypeError(`reportkit: no secret given. ${hint}`);
  }
  if (typeof secret === "function") return;
  const list = typeof secret === "string" ? [secret] : secret;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError(
      `reportkit: \`secret\` must be a string, an array of strings, a function, or \`{ value, header }\`. ${hint}`,
    );
  }
  list.forEach((s: unknown, i: number) => {
    const where = Array.isArray(secret) ? `secret[${i}]` : "secret";
    if (typeof s !== "string" || s.trim() === "") {
      throw new TypeError(`reportkit: \`${where}\` is empty or not a string. ${hint}`);
    }
    const problem = unmatchable(s, bearer);
    if (problem !== undefined) {
      throw new TypeError(
        `reportkit: \`${where}\` (or ${SECRET_ENV}) ${problem}, so no request could ever match it and every report would get 401. Use the secret exactly as the provider sends it: visible ASCII characters only.`,
      );
    }
  });
}

/**
 * Why a secret can never match a credential a request carries, if it can't: HTTP trims a header
 * value's surrounding whitespace, a Bearer value ends at the first space, and Node reads header
 * bytes as latin1, so a non-ASCII or control character never arrives as written.
 */
function unmatchable(secret: string, bearer: boolean): string | undefined {
  if (secret !== secret.trim()) return "has whitespace around it";
  for (let i = 0; i < secret.length; i++) {
    const c = secret.charCodeAt(i);
    if (c === 0x20 || c === 0x09) {
      if (bearer) return `has a space at character ${i + 1}`;
    } else if (c < 0x21 || c === 0x7f) return `has a control character at character ${i + 1}`;
    else if (c > 0x7e) return `has a non-ASCII character at character ${i + 1}`;
  }
  // The Bearer reader drops one trailing comma (the provider's documented curl sends one).
  if (bearer && secret.endsWith(",")) return "ends with a comma, which the Bearer reader drops";
  return undefined;
}
