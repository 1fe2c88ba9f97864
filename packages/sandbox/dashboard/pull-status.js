// A report's message (or call) as the provider's pull API lists it: `GET sms/status?id=` (or
// `outgoing/callstatus?id=`) through the dashboard API, shown on the report's timeline. A push
// that was dropped while the message was delivered reads as such: what `reportkit reconcile`
// gets back.
import { api } from "./api.js";

/** Fills the group's `.pull-status` line from the pull API, once (a status does not change). */
export async function showPullStatus(group, attempt) {
  const node = group.querySelector(".pull-status");
  // An opt-out is no message: no pull API lists it.
  if (attempt.report_type === "unsubscribe") return;
  const call = attempt.report_type === "call";
  const path = call ? "outgoing/callstatus" : "sms/status";
  const label = call ? "Call status API" : "Pull DLR API";
  try {
    const reply = await api("GET", `${path}?id=${encodeURIComponent(attempt.report_id)}`);
    const record = Array.isArray(reply?.data) ? reply.data[0] : undefined;
    if (record === undefined) {
      node.textContent = `${label}: not listed`;
      return;
    }
    const when = call ? record.end_at : record.delivered_at;
    node.textContent = `${label}: ${record.status}${when ? ` (${call ? "ended" : "delivered"} ${when})` : ""}`;
    node.dataset.status = record.status;
  } catch (error) {
    node.textContent = `${label}: ${error.message}`;
  }
}
