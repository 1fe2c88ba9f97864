// The one rate limiter of the receiver's log: a refusal repeats for every request of a
// misconfigured sender (a wrong secret, say), and a warning for every report of a sender that
// fills a field wrongly. One line a minute per cause says so without flooding the log; a few
// causes a minute per topic at most, since some messages name what the request sent and a flood
// of varied requests must not become a flood of lines.

const INTERVAL_MS = 60_000;
const CAUSES_PER_TOPIC = 5;

/**
 * `fresh(topic, cause)`: true the first time a cause of a topic is seen within a minute (and at
 * most five causes a topic a minute), false otherwise.
 */
export function onceAMinute(): (topic: string, cause: string) => boolean {
  const windows = new Map<string, { since: number; causes: Set<string> }>();
  return (topic, cause) => {
    const now = Date.now();
    let window = windows.get(topic);
    if (window === undefined || now - window.since >= INTERVAL_MS) {
      window = { since: now, causes: new Set() };
      windows.set(topic, window);
    }
    if (window.causes.has(cause) || window.causes.size >= CAUSES_PER_TOPIC) return false;
    window.causes.add(cause);
    return true;
  };
}
