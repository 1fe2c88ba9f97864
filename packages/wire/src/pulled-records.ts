// The records the provider's pull APIs list (v2/sms/pull-dlr.md, v2/reach/status.md,
// v2/voice/logs.md), as their pages show them: one definition for the sandbox, which serves them, and the tests' stand-in
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

/** A call as `GET voice/calls` (Call Logs) lists it, fields in the page's order. */
export interface PulledCallLog {
  id: string;
  call_from: string;
  call_to: string;
  /** "IN" in the page's sample (an incoming call). */
  service: string;
  bridge: string;
  status: string;
  /** "00:00:12": hours, minutes, seconds. */
  duration: string;
  billing: string;
  /** The billing pulse in seconds, "30". */
  pulsing: string;
  /** Four decimals, "0.0150". */
  charges: string;
  start_at: string;
  end_at: string;
  /** "caller" or "agent". */
  hangup_by: string;
  dtmf: string | null;
  /** Codes: "IN", "AP", "RJ". */
  location: string;
  region: string;
  provider: string;
  notes: string | null;
  /** The call's recording URL, null without one. */
  audio: string | null;
  name: string | null;
}

/** A recording as `GET voice/recordings` lists it, fields in the page's order. */
export interface PulledRecording {
  id: string;
  call_from: string;
  call_to: string;
  /** A fresh presigned URL of the recording (`X-Amz-Date`, `X-Amz-Expires`). */
  audio: string;
  /** "00:01:33". */
  duration: string;
  agent: string | null;
  /** Wall-clock "yyyy-mm-dd HH:MM:SS" in the provider's zone. */
  created_at: string;
}
