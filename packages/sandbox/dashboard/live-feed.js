// The live feed: one server-sent event stream (a snapshot, then webhooks and attempts as they
// change), and the connection line that says whether the page is live.
import { key } from "./api.js";
import { addAttempt, clearAttempts } from "./attempt-log.js";
import { $ } from "./dom.js";
import { setEvents } from "./send-form.js";
import { showWebhooks } from "./webhook-list.js";

function setConnection(stateName, text) {
  const node = $("connection");
  node.dataset.state = stateName;
  node.textContent = text;
}

export function connect() {
  if (!key) {
    setConnection(
      "error",
      "No dashboard key: open the dashboard URL the sandbox printed (it ends in #key=…).",
    );
    // Not "No webhook yet": without the key nothing is known of the sandbox's webhooks.
    $("no-webhooks").textContent =
      "Add the key: open the dashboard URL the sandbox printed when it started (it ends in #key=…).";
    return;
  }
  const events = new EventSource(`api/sandbox/events?key=${encodeURIComponent(key)}`);
  events.addEventListener("open", () => setConnection("live", "Live"));
  events.addEventListener("error", () => {
    // CLOSED: the sandbox refused the stream (a restarted sandbox has a new key), no retry.
    if (events.readyState === EventSource.CLOSED) {
      setConnection(
        "error",
        "Disconnected: the sandbox stopped or restarted. Open the dashboard URL it printed.",
      );
    } else {
      setConnection("error", "Disconnected from the sandbox: reconnecting…");
    }
  });
  events.addEventListener("snapshot", (event) => {
    const snapshot = JSON.parse(event.data);
    $("base-url").textContent = snapshot.base_url;
    setEvents(snapshot.notification_events);
    showWebhooks(snapshot.webhooks);
    clearAttempts();
    // Hidden until now: before the snapshot, "nothing pushed yet" was not known.
    $("no-attempts").hidden = snapshot.attempts.length > 0;
    for (const attempt of snapshot.attempts) addAttempt(attempt);
    setConnection("live", "Live");
  });
  events.addEventListener("webhooks", (event) => showWebhooks(JSON.parse(event.data)));
  events.addEventListener("attempt", (event) => addAttempt(JSON.parse(event.data)));
}
