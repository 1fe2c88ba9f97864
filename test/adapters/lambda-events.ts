// Lambda events in the shapes AWS documents for each integration (API Gateway REST API proxy
// integration, payload 1.0; HTTP API, payload 2.0; Lambda function URLs), every field of the
// published samples present, with this test's request in them: what API Gateway or the
// function URL hands the function for one POST.
import type { LambdaEventV1, LambdaEventV2 } from "@reportkit/lambda";

export interface HttpRequest {
  method?: string;
  path?: string;
  query?: Record<string, string[]>;
  headers: Record<string, string>;
  body?: string;
  base64?: boolean;
}

const encodeBody = (body: string | undefined, base64: boolean | undefined) =>
  body === undefined ? null : base64 === true ? Buffer.from(body, "utf8").toString("base64") : body;

/** REST API (payload 1.0): header names as sent, values also as lists; the query decoded. */
export function restApiEvent(request: HttpRequest): LambdaEventV1 & Record<string, unknown> {
  const path = request.path ?? "/webhooks";
  const method = request.method ?? "POST";
  const query = request.query ?? {};
  const single = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v.at(-1) ?? ""]));
  return {
    resource: path,
    path,
    httpMethod: method,
    headers: {
      Accept: "*/*",
      Host: "a1b2c3d4e5.execute-api.ap-south-1.amazonaws.com",
      "User-Agent": "curl/8.5.0",
      "X-Amzn-Trace-Id": "Root=1-67891233-abcdef012345678912345678",
      "X-Forwarded-For": "203.0.113.7",
      "X-Forwarded-Port": "443",
      "X-Forwarded-Proto": "https",
      ...request.headers,
    },
    multiValueHeaders: {
      Accept: ["*/*"],
      Host: ["a1b2c3d4e5.execute-api.ap-south-1.amazonaws.com"],
      "User-Agent": ["curl/8.5.0"],
      "X-Amzn-Trace-Id": ["Root=1-67891233-abcdef012345678912345678"],
      "X-Forwarded-For": ["203.0.113.7"],
      "X-Forwarded-Port": ["443"],
      "X-Forwarded-Proto": ["https"],
      ...Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, [v]])),
    },
    queryStringParameters: Object.keys(query).length === 0 ? null : single,
    multiValueQueryStringParameters: Object.keys(query).length === 0 ? null : query,
    pathParameters: null,
    stageVariables: null,
    requestContext: {
      accountId: "123456789012",
      apiId: "a1b2c3d4e5",
      domainName: "a1b2c3d4e5.execute-api.ap-south-1.amazonaws.com",
      domainPrefix: "a1b2c3d4e5",
      extendedRequestId: "JKJaXmPLvHcESHA=",
      httpMethod: method,
      identity: { sourceIp: "203.0.113.7", userAgent: "curl/8.5.0" },
      path: `/prod${path}`,
      protocol: "HTTP/1.1",
      requestId: "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
      requestTime: "09/Apr/2021:10:57:52 +0000",
      requestTimeEpoch: 1617965872000,
      resourceId: "2gxmpl",
      resourcePath: path,
      stage: "prod",
    },
    body: encodeBody(request.body, request.base64),
    isBase64Encoded: request.base64 === true,
  };
}

/** HTTP API (payload 2.0) and function URLs: lower-case header names, the raw query string. */
function v2Event(request: HttpRequest, domainName: string, routeKey: string) {
  const path = request.path ?? "/webhooks";
  const method = request.method ?? "POST";
  const rawQueryString = new URLSearchParams(
    Object.entries(request.query ?? {}).flatMap(([k, vs]) => vs.map((v) => [k, v])),
  ).toString();
  return {
    version: "2.0" as const,
    routeKey,
    rawPath: path,
    rawQueryString,
    headers: {
      accept: "*/*",
      "content-length": String(Buffer.byteLength(request.body ?? "")),
      host: domainName,
      "user-agent": "curl/8.5.0",
      "x-amzn-trace-id": "Root=1-67891233-abcdef012345678912345678",
      "x-forwarded-for": "203.0.113.7",
      "x-forwarded-port": "443",
      "x-forwarded-proto": "https",
      ...Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v])),
    },
    requestContext: {
      accountId: "123456789012",
      apiId: domainName.split(".")[0],
      domainName,
      domainPrefix: domainName.split(".")[0],
      http: {
        method,
        path,
        protocol: "HTTP/1.1",
        sourceIp: "203.0.113.7",
        userAgent: "curl/8.5.0",
      },
      requestId: "JKJaXmPLvHcESHA=",
      routeKey,
      stage: "$default",
      time: "09/Apr/2021:10:57:52 +0000",
      timeEpoch: 1617965872000,
    },
    ...(request.body === undefined
      ? {}
      : { body: encodeBody(request.body, request.base64) as string }),
    isBase64Encoded: request.base64 === true,
  };
}

export function httpApiEvent(request: HttpRequest): LambdaEventV2 & Record<string, unknown> {
  const event = v2Event(
    request,
    "a1b2c3d4e5.execute-api.ap-south-1.amazonaws.com",
    `${request.method ?? "POST"} ${request.path ?? "/webhooks"}`,
  );
  return { ...event, pathParameters: {}, stageVariables: {} };
}

/** A function URL: payload 2.0 with routeKey "$default" and the lambda-url domain. */
export function functionUrlEvent(request: HttpRequest): LambdaEventV2 & Record<string, unknown> {
  return v2Event(
    request,
    "abcdefghijklmnopqrstuvwxyz0123.lambda-url.ap-south-1.on.aws",
    "$default",
  );
}
