/** One HTTP request the pusher sends, fully rendered. */
export interface PushRequest {
  method: "GET" | "POST" | "PUT";
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** The standard push: the report as JSON, POSTed with the webhook's bearer credential. */
export function standardPush(url: string, report: object, bearer: string | null): PushRequest {
  const headers: Record<string, string> = {
    accept: "*/*",
    "content-type": "application/json",
  };
  if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
  return { method: "POST", url, headers, body: JSON.stringify(report) };
}
