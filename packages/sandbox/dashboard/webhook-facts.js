// What the sandbox tells about a webhook beyond the provider's resource, in words: whether its
// pushes carry a bearer and from which field (never the value), and its verification challenge.

const BEARER_FROM = {
  token: "its token",
  secret: "its secret (no token given)",
  REPORTKIT_TOKEN: "the sandbox's REPORTKIT_TOKEN (no token given)",
};

/** Whether pushes carry a bearer, and from which field: never the value. */
export function bearerText(webhook) {
  const bearer = webhook.bearer;
  if (!bearer?.set) return "Bearer: none (pushes carry no Authorization; give it a token)";
  return `Bearer: set, from ${BEARER_FROM[bearer.from] ?? bearer.from}`;
}

export function challengeText(challenge) {
  if (challenge.passed) return "Verification challenge: passed";
  return `Verification challenge: ${challenge.sent ? "failed" : "not sent"}: ${challenge.reason}`;
}
