// Composed bodies an Express body parser read first (a plain request on every other target).
import {
  asJson,
  asUrlencoded,
  CALL_EXAMPLE_BODY,
  CALL_EXAMPLE_GET,
  CALL_EXAMPLE_GOT,
  CALL_EXAMPLE_POST,
  CALL_EXAMPLE_QUERY,
  CALL_QUERY,
  composedCall,
  composedDelivery,
  DLR_POST_FORM,
  DLR_PUT_FORM,
  DLR_PUT_JSON,
  DLR_VALUES,
  FORM_HEADERS,
  MULTIPART_HEADERS,
} from "./composed-templates.js";
import { multipart, send, URL } from "./shared.js";
import type { ConformanceCase } from "./types.js";

export const COMPOSED_EXPRESS_PARSER_CASES: ConformanceCase[] = [
  // ---- Composed bodies an Express body parser read first (a plain request elsewhere) -------
  {
    name: "composed delivery POST urlencoded, pre-parsed by express.urlencoded()",
    setup: DLR_POST_FORM,
    expressParsers: ["urlencoded"],
    requests: send("POST", URL, asUrlencoded(DLR_VALUES), FORM_HEADERS),
    expect: { status: 200, calls: [composedDelivery(DLR_VALUES)] },
  },
  {
    name: "composed delivery PUT urlencoded, pre-parsed by express.urlencoded({ extended: true })",
    setup: DLR_PUT_FORM,
    expressParsers: ["json", "urlencoded-extended"],
    requests: send("PUT", URL, asUrlencoded(DLR_VALUES), FORM_HEADERS),
    expect: { status: 200, calls: [composedDelivery(DLR_VALUES)] },
  },
  {
    name: "composed delivery PUT JSON, pre-parsed by express.json()",
    setup: DLR_PUT_JSON,
    expressParsers: ["urlencoded", "json"],
    requests: send("PUT", URL, asJson(DLR_VALUES)),
    expect: { status: 200, calls: [composedDelivery(DLR_VALUES)] },
  },
  {
    name: "composed delivery PUT multipart, with express.json() and express.urlencoded() first",
    setup: DLR_PUT_FORM,
    expressParsers: ["json", "urlencoded"],
    requests: send("PUT", URL, multipart(DLR_VALUES), MULTIPART_HEADERS),
    expect: { status: 200, calls: [composedDelivery(DLR_VALUES)] },
  },
  {
    name: "composed call GET, with express.json() and express.urlencoded() first",
    setup: CALL_EXAMPLE_GET,
    expressParsers: ["json", "urlencoded"],
    requests: send("GET", CALL_EXAMPLE_QUERY),
    expect: { status: 200, calls: [composedCall(CALL_EXAMPLE_GOT, CALL_QUERY)] },
  },
  {
    name: "composed call POST JSON (the field-notes example), pre-parsed by express.json()",
    setup: CALL_EXAMPLE_POST,
    expressParsers: ["json"],
    requests: send("POST", CALL_EXAMPLE_QUERY, JSON.stringify(CALL_EXAMPLE_BODY)),
    expect: {
      status: 200,
      calls: [
        composedCall(
          { ...CALL_EXAMPLE_GOT, duration: 23 },
          { ...CALL_QUERY, ...CALL_EXAMPLE_BODY },
        ),
      ],
    },
  },
];
