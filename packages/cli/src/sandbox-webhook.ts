// What only the sandbox tells about a webhook (the provider's API masks both credentials):
// which are set, never their values (the secret, which its pushes carry as the bearer, and
// where it comes from; the token, the validation key of its verification), and the
// verification request it can send.

/** The credential lines of `webhooks show`, and the last verification, as the sandbox reports them. */
export interface SandboxWebhookFacts {
  bearer: { set: boolean; from: "secret" | "REPORTKIT_SECRET" | null };
  token: { set: boolean };
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
  return facts?.bearer === undefined || facts.token === undefined
    ? undefined
    : (facts as SandboxWebhookFacts);
}

/** Asks the sandbox to send webhook `id` its verification request; undefined if not a sandbox. */
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

/** The secret line: whether one is set and where it comes from, never its value. */
export function secretLine(facts: SandboxWebhookFacts): string {
  const { set, from } = facts.bearer;
  if (!set || from === null) {
    return "none: pushes carry no Authorization; give the webhook's secret with --secret";
  }
  return from === "secret"
    ? "set: the bearer of every push"
    : "set, from the sandbox's REPORTKIT_SECRET (the webhook has none): the bearer of every push";
}

/** The token line: whether one is set, never its value. */
export function tokenLine(facts: SandboxWebhookFacts): string {
  return facts.token.set
    ? "set: the validation key of the verification"
    : "none: no verification is sent; give one with --token";
}

/** One line for a verification's outcome. */
export function challengeLine(outcome: ChallengeJson): string {
  if (outcome.passed)
    return `passed: the receiver answered the verification (${outcome.url ?? ""})`;
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
