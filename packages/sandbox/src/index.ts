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
export {
  type BuiltNotification,
  buildNotification,
  NOTIFICATION_EVENTS,
  type NotificationEvent,
  type NotificationOverrides,
  type NotificationPayload,
  notificationOverrides,
  type SandboxOptOutPayload,
} from "./notifications.js";
export type {
  DispatchedNotification,
  NotificationInput,
  OptOutInput,
} from "./push-notification.js";
export { documentedJson, indentedJson, type PushRequest, standardPush } from "./push-request.js";
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
  buildClick2CallReport,
  buildDeliveryReport,
  type CallOverrides,
  type Click2CallOverrides,
  type DeliveryOverrides,
  documentedCall,
  documentedDelivery,
  PAYLOAD_STYLES,
  type PayloadStyle,
  type ReportClock,
  type SandboxCallPayload,
  type SandboxClick2CallPayload,
  type SandboxDeliveryPayload,
} from "./reports.js";
export { hostCheck } from "./request-guard.js";
export { pushAttemptJson } from "./sandbox-api.js";
export type { SandboxOptions, VerificationSent } from "./sandbox-options.js";
export type {
  CallInput,
  Click2CallInput,
  Dispatched,
  SmsInput,
} from "./simulate-sms-and-calls.js";
export type { ChallengeOutcome } from "./verification-challenge.js";
