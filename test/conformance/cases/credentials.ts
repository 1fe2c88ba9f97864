// The webhook's verification request (help/verify-webhook.md) and the token check (401).
import { VERIFICATION_SAMPLE } from "../../fixtures/samples.js";
import { CHALLENGE, DLR_JSON, JSON_HEADERS, JSON_TYPE, post } from "./shared.js";
import type { ConformanceCase } from "./types.js";

export const CREDENTIAL_CASES: ConformanceCase[] = [
  // ---- the webhook's verification (help/verify-webhook.md) --------------------------------
  {
    name: "the provider's verification request byte for byte (trailing comma): 200 JSON with its challenge",
    setup: { verificationToken: VERIFICATION_SAMPLE.queryKey },
    requests: [
      {
        method: "POST",
        url: VERIFICATION_SAMPLE.url,
        headers: {
          authorization: `Bearer ${VERIFICATION_SAMPLE.secret}`,
          "content-type": "application/json",
        },
        body: VERIFICATION_SAMPLE.body,
      },
    ],
    expect: {
      status: 200,
      body: { challenge: VERIFICATION_SAMPLE.challenge },
      headers: { "content-type": "application/json" },
      calls: [],
    },
  },
  {
    name: "the verification request as valid JSON, its key in the body: 200 JSON with its challenge",
    setup: { verificationToken: VERIFICATION_SAMPLE.bodyKey },
    requests: post(
      JSON.stringify({ validation_key: VERIFICATION_SAMPLE.bodyKey, challenge: "valid-json" }),
      // With the secret, as the provider sends it: without it (and without the key in the
      // query) the request is refused before its body is read (issue 42, 2).
      JSON_HEADERS,
    ),
    expect: {
      status: 200,
      body: { challenge: "valid-json" },
      headers: { "content-type": "application/json" },
      calls: [],
    },
  },
  {
    name: "no verificationToken: the verification request carrying the receiver's secret is answered",
    requests: post(
      JSON.stringify({ validation_key: "any-key", challenge: "by-the-secret" }),
      JSON_HEADERS,
    ),
    expect: { status: 200, body: { challenge: "by-the-secret" }, calls: [] },
  },
  {
    name: "the verification request with a wrong key: 401 with WWW-Authenticate, no challenge echoed",
    setup: { verificationToken: "another-key" },
    requests: [
      {
        method: "POST",
        url: VERIFICATION_SAMPLE.url,
        headers: {
          authorization: `Bearer ${VERIFICATION_SAMPLE.secret}`,
          "content-type": "application/json",
        },
        body: VERIFICATION_SAMPLE.body,
      },
    ],
    expect: {
      status: 401,
      code: "unauthorized",
      message: /validation key/,
      headers: { "www-authenticate": `${CHALLENGE}, error="invalid_token"` },
      calls: [],
    },
  },

  // ---- 401 -------------------------------------------------------------------------------
  {
    name: "no Authorization header",
    requests: post(DLR_JSON, JSON_TYPE),
    expect: {
      status: 401,
      code: "unauthorized",
      headers: { "www-authenticate": CHALLENGE },
      calls: [],
    },
  },
  {
    name: "a Basic Authorization header",
    requests: post(DLR_JSON, { ...JSON_TYPE, authorization: "Basic dXNlcjpwYXNz" }),
    expect: {
      status: 401,
      code: "unauthorized",
      headers: { "www-authenticate": CHALLENGE },
      calls: [],
    },
  },
  {
    name: "a wrong token",
    requests: post(DLR_JSON, { ...JSON_TYPE, authorization: "Bearer not-the-token" }),
    expect: {
      status: 401,
      code: "unauthorized",
      headers: { "www-authenticate": `${CHALLENGE}, error="invalid_token"` },
      calls: [],
    },
  },
];
