// The event and result shapes of the Lambda integrations that carry HTTP, as AWS documents
// them: only the fields the translation reads. Nothing from `aws-lambda` types is needed.

/** Header values as API Gateway passes them: one value, or one list per name (REST API). */
type HeaderRecord = Readonly<Record<string, string | undefined>>;

/** API Gateway REST API (payload format 1.0). */
export interface LambdaEventV1 {
  httpMethod: string;
  /** The request path, without the stage ("/webhooks"). */
  path: string;
  headers?: HeaderRecord | null;
  /** Every value of a repeated header; preferred to `headers`, which keeps only the last. */
  multiValueHeaders?: Readonly<Record<string, readonly string[] | undefined>> | null;
  multiValueQueryStringParameters?: Readonly<Record<string, readonly string[] | undefined>> | null;
  queryStringParameters?: HeaderRecord | null;
  body?: string | null;
  isBase64Encoded?: boolean;
}

/** API Gateway HTTP API (payload format 2.0) and Lambda function URLs. */
export interface LambdaEventV2 {
  version: "2.0";
  rawPath: string;
  rawQueryString?: string;
  /** Lower-case names; a repeated header's values joined with commas. */
  headers?: HeaderRecord;
  requestContext: { http: { method: string } };
  body?: string;
  isBase64Encoded?: boolean;
}

/** Any event this handler takes. */
export type LambdaHttpEvent = LambdaEventV1 | LambdaEventV2;

/** The result API Gateway (both payload formats) and function URLs send back as the reply. */
export interface LambdaHttpResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded: false;
}
