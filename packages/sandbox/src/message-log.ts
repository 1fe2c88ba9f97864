import type { PulledCall, PulledMessage } from "@reportkit/wire";
import { isDelivered, type SandboxCallPayload, type SandboxDeliveryPayload } from "./reports.js";

export type { PulledCall, PulledMessage };

// Every simulated message and call, as the provider's pull APIs list them (v2/sms/pull-dlr.md,
// v2/reach/status.md), whatever became of its push: what `reportkit reconcile` reads back.

/** What the pull APIs can be asked by. */
export interface PullFilter {
  id?: string;
  mobile?: string;
  cid?: string;
  date?: string;
  groupId?: string;
}

interface LoggedMessage {
  record: PulledMessage;
  /** The report's `cid`: `cid` filters by it or by `custom` (the page calls it "your custom id"). */
  cid: string;
}

/** The sender id the sandbox's messages carry (the page shows "SENDER"). */
export const SANDBOX_SENDER = "RPTKIT";
/** How many messages and calls are kept (the oldest are forgotten first). */
const MAX_KEPT = 100_000;

export class MessageLog {
  private readonly messages: LoggedMessage[] = [];
  private readonly calls: PulledCall[] = [];

  /** Logs a simulated SMS from its complete report (before its documented shape is cut). */
  sms(report: SandboxDeliveryPayload, message: string | undefined): void {
    this.messages.push({
      cid: report.cid,
      record: {
        id: report.id,
        mobile: report.mobile,
        status: report.status,
        units: report.units,
        service: "T",
        length: typeof message === "string" ? message.length : 0,
        charges: Number(report.credits),
        custom: report.custom ?? "",
        custom1: "",
        location: "",
        provider: "",
        submitted_at: report.submit_time,
        delivered_at: isDelivered(report.status) ? (report.deliv_time ?? "") : "",
        sender: SANDBOX_SENDER,
      },
    });
    if (this.messages.length > MAX_KEPT) this.messages.shift();
  }

  /** Logs a simulated call from its complete report: its `mid` is the call's id. */
  call(report: SandboxCallPayload): void {
    this.calls.push({
      id: report.mid,
      channel: "outgoing",
      from: String(report.from),
      to: String(report.to),
      created_at: report.start_at,
      foreign_id: "",
      status: report.status,
      start_at: report.start_at,
      end_at: report.end_at,
      dtmf: "",
    });
    if (this.calls.length > MAX_KEPT) this.calls.shift();
  }

  /** The messages every given filter matches, oldest first (the day: of `submitted_at`). */
  findMessages(filter: PullFilter): PulledMessage[] {
    return this.messages
      .filter(({ record: m, cid }) => {
        if (filter.id !== undefined && m.id !== filter.id) return false;
        if (filter.mobile !== undefined && m.mobile !== filter.mobile) return false;
        if (filter.cid !== undefined && m.custom !== filter.cid && cid !== filter.cid) return false;
        if (filter.date !== undefined && m.submitted_at.slice(0, 10) !== filter.date) return false;
        if (filter.groupId !== undefined && m.id.split(":")[0] !== filter.groupId) return false;
        return true;
      })
      .map(({ record }) => record);
  }

  /** The calls every given filter matches, oldest first (`mobile` is the number called). */
  findCalls(filter: PullFilter): PulledCall[] {
    return this.calls.filter(
      (c) =>
        (filter.id === undefined || c.id === filter.id) &&
        (filter.mobile === undefined || c.to === filter.mobile) &&
        (filter.cid === undefined || c.foreign_id === filter.cid) &&
        (filter.date === undefined || c.created_at.slice(0, 10) === filter.date),
    );
  }
}
