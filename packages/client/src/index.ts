export { normalizeBaseUrl } from "./base-url.js";
export {
  type Client,
  type ClientOptions,
  type CreateWebhookInput,
  createClient,
  type ListWebhooksParams,
  type UpdateWebhookInput,
  type WebhooksApi,
} from "./create-client.js";
export {
  DEFAULT_RECORDING_MAX_BYTES,
  DEFAULT_RECORDING_TIMEOUT_MS,
  type DownloadedRecording,
  type DownloadRecordingOptions,
  downloadRecording,
  type RecordingInfo,
  type RecordingSink,
} from "./download-recording.js";
export {
  ApiError,
  ClientError,
  InvalidResponseError,
  RecordingError,
  type RecordingErrorReason,
  RequestFailedError,
  ResponseTooLargeError,
} from "./errors.js";
export type { Page, PageInfo, PageLinks } from "./paginator.js";
export type { CallsApi, DlrApi } from "./pull-apis.js";
export type { AtLeastOne, CallStatusQuery, DayRange, DlrQuery } from "./pull-query.js";
export {
  type CallStatusPage,
  type CallStatusRecord,
  CallStatusRecordSchema,
  type DlrPage,
  type DlrRecord,
  DlrRecordSchema,
  type StatusSummary,
  type StatusSummaryDay,
  type Subscription,
  type SubscriptionPage,
  SubscriptionSchema,
} from "./pull-schemas.js";
export {
  type ReconcileEvent,
  ReconcileIncompleteError,
  type ReconcileOptions,
  type ReconcileOutcome,
  type ReconcileSummary,
  reconcile,
} from "./reconcile.js";
export {
  callReportOf,
  deliveryReportOf,
  type PushedReport,
  RECONCILED_HEADER,
} from "./reconciled-report.js";
export type { RecordedCall } from "./recorded-call.js";
export {
  matchRecording,
  RECORDING_MATCH_AFTER_MS,
  RECORDING_MATCH_BEFORE_MS,
} from "./recording-match.js";
export {
  type Webhook,
  type WebhookPage,
  WebhookSchema,
  type WebhookStatus,
  type WebhookWire,
  WebhookWireSchema,
} from "./schemas.js";
export type { CreateSubscriptionInput, SubscriptionsApi } from "./subscriptions-api.js";
export {
  type CallLogPage,
  type CallLogRecord,
  CallLogRecordSchema,
  type Recording,
  type RecordingPage,
  RecordingSchema,
} from "./voice-log-schemas.js";
export type { CallLogsApi, RecordingsApi } from "./voice-logs-api.js";
