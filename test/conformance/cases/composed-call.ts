// Composed: the field-notes call example.
import {
  CALL_EXAMPLE_BODY,
  CALL_EXAMPLE_GET,
  CALL_EXAMPLE_GOT,
  CALL_EXAMPLE_PATH,
  CALL_EXAMPLE_POST,
  CALL_EXAMPLE_QUERY,
  CALL_QUERY,
  composedCall,
} from "./composed-templates.js";
import { CALL_REPORT, CHALLENGE, send, without } from "./shared.js";
import type { ConformanceCase } from "./types.js";

export const COMPOSED_CALL_CASES: ConformanceCase[] = [
  // ---- Composed: the field-notes call example ----------------------------------------------
  {
    name: "composed call, the field-notes example as GET: values from the query, {{id}} fills mid",
    setup: CALL_EXAMPLE_GET,
    requests: send("GET", CALL_EXAMPLE_QUERY),
    expect: { status: 200, calls: [composedCall(CALL_EXAMPLE_GOT, CALL_QUERY)] },
  },
  {
    name: "composed call, the field-notes example as POST: query and JSON body keys",
    setup: CALL_EXAMPLE_POST,
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
  {
    name: "composed call GET: a promised query key missing is 400 naming it",
    setup: CALL_EXAMPLE_GET,
    requests: send("GET", `${CALL_EXAMPLE_PATH}?call_id=${CALL_REPORT.mid}&message_status=ANSWER`),
    expect: { status: 400, code: "invalid_report", message: /"to"/, calls: [] },
  },
  {
    name: "composed call GET: an empty promised text value is an empty string",
    setup: CALL_EXAMPLE_GET,
    requests: send(
      "GET",
      `${CALL_EXAMPLE_PATH}?call_id=${CALL_REPORT.mid}&to=&message_status=ANSWER`,
    ),
    expect: {
      status: 200,
      calls: [composedCall({ ...CALL_EXAMPLE_GOT, to: "" }, { ...CALL_QUERY, to: "" })],
    },
  },
  {
    name: "composed call POST: a promised body key missing is 400 naming it",
    setup: CALL_EXAMPLE_POST,
    requests: send(
      "POST",
      CALL_EXAMPLE_QUERY,
      JSON.stringify(without(CALL_EXAMPLE_BODY, "duration")),
    ),
    expect: { status: 400, code: "invalid_report", message: /"duration"/, calls: [] },
  },
  {
    name: "composed call GET: a template without path placeholders leaves the path to the route",
    setup: CALL_EXAMPLE_GET,
    requests: send("GET", `/webhooks/ack/other?${new URLSearchParams(CALL_QUERY)}`),
    expect: { status: 200, calls: [composedCall(CALL_EXAMPLE_GOT, CALL_QUERY)] },
  },
  {
    name: "composed call GET: POST is 405 with Allow: GET",
    setup: CALL_EXAMPLE_GET,
    requests: send("POST", CALL_EXAMPLE_QUERY, JSON.stringify(CALL_EXAMPLE_BODY)),
    expect: { status: 405, code: "method_not_allowed", headers: { allow: "GET" }, calls: [] },
  },
  {
    name: "composed call POST: GET is 405 with Allow: POST",
    setup: CALL_EXAMPLE_POST,
    requests: send("GET", CALL_EXAMPLE_QUERY),
    expect: { status: 405, code: "method_not_allowed", headers: { allow: "POST" }, calls: [] },
  },
  {
    name: "composed call GET: without the token, 401",
    setup: CALL_EXAMPLE_GET,
    requests: send("GET", CALL_EXAMPLE_QUERY, undefined, {}),
    expect: {
      status: 401,
      code: "unauthorized",
      headers: { "www-authenticate": CHALLENGE },
      calls: [],
    },
  },
];
