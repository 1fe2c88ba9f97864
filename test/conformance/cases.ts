// The conformance table: every request here gets the same reply, and the same handler calls,
// from @reportkit/core and from every adapter. Each target file runs it unchanged.
// The rows live in test/conformance/cases/, one theme a file; this file puts them in order.

import { COMPOSED_CALL_CASES } from "./cases/composed-call.js";
import { COMPOSED_DELIVERY_CASES } from "./cases/composed-delivery.js";
import { COMPOSED_EXPRESS_PARSER_CASES } from "./cases/composed-express-parsers.js";
import { COMPOSED_GRAMMAR_AND_PATH_CASES } from "./cases/composed-grammar-and-paths.js";
import { CREDENTIAL_CASES } from "./cases/credentials.js";
import { DELIVERED_CASES } from "./cases/delivered.js";
import { EXPRESS_PARSER_CASES } from "./cases/express-parsers.js";
import { HANDLER_CASES } from "./cases/handlers.js";
import { PROVIDER_SAMPLE_CASES } from "./cases/provider-samples.js";
import { REFUSAL_CASES } from "./cases/refusals.js";
import { RETRY_AND_QUEUE_CASES } from "./cases/retries-and-queue.js";
import type { ConformanceCase } from "./cases/types.js";

export { CONSTRUCTION_ERRORS } from "./cases/construction-errors.js";
export type {
  ConformanceCase,
  ConstructionErrorCase,
  ExpectedReply,
  ExpressParser,
  RequestSpec,
} from "./cases/types.js";

export const CASES: ConformanceCase[] = [
  ...DELIVERED_CASES,
  ...CREDENTIAL_CASES,
  ...REFUSAL_CASES,
  ...RETRY_AND_QUEUE_CASES,
  ...EXPRESS_PARSER_CASES,
  ...HANDLER_CASES,
  ...PROVIDER_SAMPLE_CASES,
  ...COMPOSED_CALL_CASES,
  ...COMPOSED_DELIVERY_CASES,
  ...COMPOSED_GRAMMAR_AND_PATH_CASES,
  ...COMPOSED_EXPRESS_PARSER_CASES,
];
