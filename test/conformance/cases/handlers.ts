// Which handlers a receiver has: none for that kind, or attached after construction.
import { SAMPLE_DLR } from "../../fixtures/samples.js";
import type { Setup } from "../setup.js";
import {
  CALL_EXAMPLE_GET,
  CALL_EXAMPLE_GOT,
  CALL_EXAMPLE_QUERY,
  CALL_QUERY,
  composedCall,
} from "./composed-templates.js";
import { CALL_JSON, called, DLR_JSON, DLR_REPORT, delivered, post, send } from "./shared.js";
import type { ConformanceCase } from "./types.js";

const ZERO_ARGUMENT: Setup = { form: "zero-argument" };
const ATTACHED_DLR_ID = "0c6f3c1e-7a2b-4d5e-9f10-2a3b4c5d6e7f:1";
const dlrWithId = (id: string) => ({ ...SAMPLE_DLR, id });

export const HANDLER_CASES: ConformanceCase[] = [
  // ---- No handler for that kind ------------------------------------------------------------
  {
    name: "a call report to a receiver with only onDelivery: 200, no call",
    setup: { handlers: "delivery-only" },
    requests: post(CALL_JSON),
    expect: { status: 200, calls: [] },
  },
  {
    name: "a DLR to a receiver with only onCall: 200, no call",
    setup: { handlers: "call-only" },
    requests: post(DLR_JSON),
    expect: { status: 200, calls: [] },
  },

  // ---- Handlers attached after construction: webhookReceiver(), then .onDelivery(fn) --------
  // (Report ids of their own: the workerd target keeps one receiver per setup across cases,
  // and the zero-argument form deduplicates, as its users get it.)
  {
    name: "zero-argument form, handlers attached after: a DLR reaches onDelivery",
    setup: ZERO_ARGUMENT,
    requests: post(JSON.stringify(dlrWithId(ATTACHED_DLR_ID))),
    expect: {
      status: 200,
      calls: [delivered({ ...DLR_REPORT, id: ATTACHED_DLR_ID, raw: dlrWithId(ATTACHED_DLR_ID) })],
    },
  },
  {
    name: "zero-argument form, handlers attached after: a call report reaches onCall",
    setup: ZERO_ARGUMENT,
    requests: post(CALL_JSON),
    expect: { status: 200, calls: [called] },
  },
  {
    name: "zero-argument form, no handler attached yet: 503 no_handler with Retry-After, no call",
    setup: { ...ZERO_ARGUMENT, attach: "none" },
    requests: post(DLR_JSON),
    expect: {
      status: 503,
      code: "no_handler",
      message: /onDelivery/,
      headers: { "retry-after": /^\d+$/ },
      calls: [],
    },
  },
  {
    name: "options without handlers, handlers attached: a DLR reaches onDelivery",
    setup: { form: "attached" },
    requests: post(DLR_JSON),
    expect: { status: 200, calls: [delivered()] },
  },
  {
    name: "options with a composed template, its handler attached: the field-notes GET example",
    setup: { ...CALL_EXAMPLE_GET, form: "attached" },
    requests: send("GET", CALL_EXAMPLE_QUERY),
    expect: { status: 200, calls: [composedCall(CALL_EXAMPLE_GOT, CALL_QUERY)] },
  },
];
