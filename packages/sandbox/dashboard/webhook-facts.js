// What the sandbox tells about a webhook beyond the provider's resource, in words: which of its
// two credentials are set (never a value): the secret its pushes carry as the bearer, and where
// it comes from; the token its verification carries; and how its last verification went.

const SECRET_FROM = {
  secret: "its own, the bearer of every push",
  REPORTKIT_SECRET:
    "the sandbox's REPORTKIT_SECRET (the webhook has none), the bearer of every push",
};

/** Whether pushes carry a secret as the bearer, and where it comes from: never the value. */
export function bearerText(webhook) {
  const bearer = webhook.bearer;
  if (!bearer?.set) return "Secret: none (pushes carry no Authorization; give it a secret)";
  return `Secret: set, ${SECRET_FROM[bearer.from] ?? bearer.from}`;
}

/** Whether the webhook has a token, the validation key of its verification: never the value. */
export function tokenText(webhook) {
  return webhook.token?.set
    ? "Token: set, the validation key of its verification"
    : "Token: none (no verification is sent; give it a token)";
}

export function challengeText(challenge) {
  if (challenge.passed) return "Verification: passed";
  return `Verification: ${challenge.sent ? "failed" : "not sent"}: ${challenge.reason}`;
}
