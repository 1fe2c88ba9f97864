// Every reply the receiver sends: the three successes, fixed and frozen, and an error's reply,
// whose status and headers are its row of the error table (they travel on the error).
import type { ReceiverResponse } from "../base/types.js";
import type { ReportkitError } from "./errors.js";

const JSON_HEADERS = Object.freeze({ "content-type": "application/json" });
export const OK = fixedReply(200, '{"ok":true}');
/** A retry of a report already processed: acknowledged, the handler not run again. */
export const DUPLICATE = fixedReply(200, '{"ok":true,"duplicate":true}');
/** Queue mode: the report is stored durably and will be processed by a worker. */
export const QUEUED = fixedReply(202, '{"ok":true,"queued":true}');

function fixedReply(status: number, body: string): ReceiverResponse {
  return Object.freeze({ status, headers: JSON_HEADERS, body });
}

export function errorResponse(error: ReportkitError): ReceiverResponse {
  const body = JSON.stringify({ ok: false, error: { code: error.code, message: error.message } });
  return { status: error.status, headers: error.headers, body };
}

/** The reply with `Connection: close`: what is left of a refused body is not read. */
export function closingConnection(response: ReceiverResponse): ReceiverResponse {
  if (response.headers.connection === "close") return response;
  return { ...response, headers: { ...response.headers, connection: "close" } };
}
