// What only the sandbox tells about a webhook (the provider's API does not): whether its pushes
// carry a bearer and from which field, and the verification challenge it can send.

/** The bearer line of `webhooks show`, and the last challenge, as the sandbox reports them. */
export interface SandboxWebhookFacts {
  bearer: { set: boolean; from: "token" | "secret" | "REPORTKIT_TOKEN" | null };
  challenge: ChallengeJson | null;
}

export interface ChallengeJson {
  sent: boolean;
  passed: boolean;
  url: string | null;
  status_code: number | null;
  reason: string | null;
}

interface Connection {
  baseUrl: string;
  token: string;
  timeoutMs: number;
}

/**
 * The sandbox's facts about webhook `id`, or undefined when `baseUrl` is not a reportkit
 * sandbox (the real provider has no such endpoint) or it cannot be asked.
 */
export async function sandboxFacts(
  connection: Connection,
  id: string,
): Promise<SandboxWebhookFacts | undefined> {
  const data = await call(connection, "GET", `sandbox/webhooks/${encodeURIComponent(id)}`);
  const facts = data as Partial<SandboxWebhookFacts> | undefined;
  return facts?.bearer === undefined ? undefined : (facts as SandboxWebhookFacts);
}

/** Asks the sandbox to send webhook `id` the verification challenge; undefined if not a sandbox. */
export async function sendChallenge(
  connection: Connection,
  id: string,
): Promise<ChallengeJson | undefined> {
  const data = await call(
    connection,
    "POST",
    `sandbox/webhooks/${encodeURIComponent(id)}/challenge`,
  );
  const outcome = data as Partial<ChallengeJson> | undefined;
  return typeof outcome?.passed === "boolean" ? (outcome as ChallengeJson) : undefined;
}

/** The bearer line: whether one is sent and where it comes from, never its value. */
export function bearerLine(facts: SandboxWebhookFacts | undefined): string {
  if (facts === undefined) return "not shown by this API (the sandbox shows it)";
  const from = facts.bearer.from;
  if (!facts.bearer.set || from === null) {
    return "none: pushes carry no Authorization; give the receiver's token with --token";
  }
  const where =
    from === "token"
      ? "the webhook's token"
      : from === "secret"
        ? "the webhook's secret (no token given)"
        : "the sandbox's REPORTKIT_TOKEN (no token given)";
  return `set, from ${where}`;
}

/** One line for a challenge's outcome. */
export function challengeLine(outcome: ChallengeJson): string {
  if (outcome.passed) return `passed: the receiver answered the challenge (${outcome.url ?? ""})`;
  return `${outcome.sent ? "failed" : "not sent"}: ${outcome.reason ?? "unknown"}`;
}

async function call(connection: Connection, method: string, path: string): Promise<unknown> {
  const base = connection.baseUrl.endsWith("/") ? connection.baseUrl : `${connection.baseUrl}/`;
  try {
    const response = await fetch(new URL(path, base), {
      method,
      headers: { accept: "application/json", authorization: `Bearer ${connection.token}` },
      signal: AbortSignal.timeout(Math.max(connection.timeoutMs, 1)),
    });
    if (!response.ok) return undefined;
    const json = (await response.json()) as { data?: unknown };
    return json.data;
  } catch {
    return undefined;
  }
}
