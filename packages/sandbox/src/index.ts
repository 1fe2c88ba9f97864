export type { CallPayload, ComposedTemplate, DeliveryPayload } from "@reportkit/wire";
export {
  type ComposedWebhookInput,
  createSandbox,
  type Sandbox,
  type SandboxComposedWebhook,
} from "./create-sandbox.js";
export { SECURITY_HEADERS } from "./dashboard-server.js";
export { FieldErrors } from "./field-errors.js";
export { formatAttempt, formatVerification } from "./format-attempt.js";
export { maskUrl } from "./mask.js";
export { documentedJson, type PushRequest, standardPush } from "./push-request.js";
export {
  createPusher,
  type PushAttempt,
  type Pusher,
  type PusherOptions,
  type PushJob,
  type PushOutcome,
} from "./pusher.js";
export type { RecordingRequest } from "./recording-files.js";
export { renderComposed, resolveTemplate } from "./render-composed.js";
export {
  buildCallReport,
  buildDeliveryReport,
  buildOptOut,
  type CallOverrides,
  type DeliveryOverrides,
  documentedCall,
  documentedDelivery,
  type OptOutOverrides,
  PAYLOAD_STYLES,
  type PayloadStyle,
  type ReportClock,
  type SandboxCallPayload,
  type SandboxDeliveryPayload,
  type SandboxOptOutPayload,
} from "./reports.js";
export { hostCheck } from "./request-guard.js";
export { pushAttemptJson } from "./sandbox-api.js";
export type { SandboxOptions, VerificationSent } from "./sandbox-options.js";
export type { CallInput, Dispatched, OptOutInput, SmsInput } from "./simulate-sms-and-calls.js";
export type { ChallengeOutcome } from "./verification-challenge.js";
