// The shapes of the conformance table's rows.
import type { ErrorCode } from "@reportkit/core";
import type { Call, Setup } from "../setup.js";

/** Body parsers an Express app runs before the receiver (other targets have none). */
export type ExpressParser =
  | "json"
  | "urlencoded"
  | "urlencoded-extended"
  | "text"
  | "text-any"
  | "raw-any";

export interface RequestSpec {
  method: string;
  /** Path and query. */
  url: string;
  /** Sent exactly as given: no default headers are added. */
  headers: Record<string, string>;
  /**
   * `fail`: that much is sent, then the body stream fails. `chunks`: sent one by one as a
   * stream, with no Content-Length (chunked on the wire), so only a limit applied while reading
   * can stop it.
   */
  body?: string | Uint8Array<ArrayBuffer> | { fail: string } | { chunks: string[] };
}

/** One reply as a case expects it. */
export interface ExpectedReply {
  status: number;
  code?: ErrorCode;
  /** What the error message must say (say, the key it names). */
  message?: RegExp;
  /** Exact values, or patterns for values whose details may vary. */
  headers?: Record<string, string | RegExp>;
  /** A success reply's body as JSON. Default `{ ok: true }`. */
  body?: object;
}

export interface ConformanceCase {
  name: string;
  setup?: Setup;
  /** Express only: these parsers run first (in this order); the reply must not change. */
  expressParsers?: ExpressParser[];
  /** Sent all at once, unless `expect.sequence` is given. */
  requests: RequestSpec[];
  /**
   * Every reply is this one; or, with `sequence`, the requests are sent one after another,
   * each once the one before was answered (as a provider's retries come), and the i-th reply
   * is `sequence[i]`.
   */
  expect: (ExpectedReply | { sequence: ExpectedReply[] }) & {
    /** Every handler call the requests caused, in any order. */
    calls: Call[];
  };
}

/** A setup the receiver must refuse when it is built, with a message naming the problem. */
export interface ConstructionErrorCase {
  name: string;
  setup: Setup;
  /** Each must match the error's message. */
  messages: RegExp[];
}
