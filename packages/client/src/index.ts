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
  ApiError,
  ClientError,
  InvalidResponseError,
  RequestFailedError,
  ResponseTooLargeError,
} from "./errors.js";
export type { Page, PageInfo, PageLinks } from "./paginator.js";
export type { CallsApi, DlrApi } from "./pull-apis.js";
export type { AtLeastOne, CallStatusQuery, DlrQuery } from "./pull-query.js";
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
export {
  type Webhook,
  type WebhookPage,
  WebhookSchema,
  type WebhookStatus,
  type WebhookWire,
  WebhookWireSchema,
} from "./schemas.js";
export type { CreateSubscriptionInput, SubscriptionsApi } from "./subscriptions-api.js";
