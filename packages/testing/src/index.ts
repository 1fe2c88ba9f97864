export {
  type ComposedRequest,
  type ComposedValues,
  type ComposedVariable,
  composedRequest,
} from "./composed-request.js";
export {
  contactUpdatePayload,
  type EventPayloadSample,
  eventPayload,
  linkVisitPayload,
  type UnsubscribePayloadSample,
  unsubscribePayload,
} from "./event-payloads.js";
export {
  type CallPayloadSample,
  type Click2CallPayloadSample,
  callPayload,
  click2CallPayload,
  type DeliveryPayloadSample,
  deliveryPayload,
  type PayloadOverrides,
  type WithOverrides,
} from "./payloads.js";
export {
  type FetchTarget,
  type InjectTarget,
  type NodeRequestListener,
  type ReportPayload,
  type ReportTarget,
  type SendCredential,
  type SendReportOptions,
  type SendReportSettings,
  type SentReport,
  sendReport,
} from "./send-report.js";
