// The records the provider's pull APIs list (v2/sms/pull-dlr.md, v2/reach/status.md), as their
// pages show them: one definition for the sandbox, which serves them, and the tests' stand-in
// for the provider. (The client reads them leniently with its own zod schemas.)

/** A message as `GET sms/status` lists it, fields in the page's order. */
export interface PulledMessage {
  id: string;
  mobile: string;
  status: string;
  units: number;
  service: string;
  length: number;
  charges: number;
  custom: string;
  custom1: string;
  location: string;
  provider: string;
  submitted_at: string;
  /** "" while the message has no receipt. */
  delivered_at: string;
  sender: string;
}

/** A call as `GET outgoing/callstatus` lists it, fields in the page's order. */
export interface PulledCall {
  id: string;
  channel: string;
  from: string;
  to: string;
  created_at: string;
  foreign_id: string;
  status: string;
  start_at: string;
  end_at: string;
  dtmf: string;
}
