export { CALL_STATUS_TABLE } from "./call-status-table.js";
export { DELIVERY_STATUS_TABLE, DLT_REJECTION } from "./delivery-status-table.js";
export {
  CONTACT_EVENT,
  type ContactUpdatePayload,
  DOCUMENTED_CONTACT_UPDATE_SAMPLE,
  DOCUMENTED_LINK_VISIT_SAMPLE,
  DOCUMENTED_MESSAGE_IN_SAMPLE,
  DOCUMENTED_MESSAGE_STATUS_SAMPLE,
  type EventEnvelope,
  LINK_VISIT_EVENT,
  type LinkVisitPayload,
  type MessageInEventPayload,
  type MessageStatusEventPayload,
  PROVIDER_EVENTS,
  type ProviderEvent,
} from "./event-payloads.js";
export { parseTemplate } from "./parse-template.js";
export {
  type CallPayload,
  type DeliveryExtraField,
  type DeliveryPayload,
  DOCUMENTED_CALL_SAMPLE,
  DOCUMENTED_CLICK2CALL_SAMPLE,
  DOCUMENTED_DELIVERY_SAMPLE,
  DOCUMENTED_UNSUBSCRIBE_SAMPLE,
  type DocumentedCallPayload,
  type DocumentedClick2CallPayload,
  type DocumentedDeliveryPayload,
  type DocumentedUnsubscribePayload,
  type ReportType,
  type UnsubscribePayload,
} from "./payloads.js";
export type {
  PulledCall,
  PulledCallLog,
  PulledMessage,
  PulledRecording,
} from "./pulled-records.js";
export {
  RECORDING_RETENTION_MS,
  RECORDING_URL_TTL_MS,
  type RecordingExpiry,
  recordingExpiry,
} from "./recording-expiry.js";
export {
  CALL_FIELD_TABLE,
  CALL_FIELDS,
  type CallField,
  DELIVERY_FIELD_TABLE,
  DELIVERY_FIELDS,
  type DeliveryField,
  FIELD_TABLES,
  type FieldReading,
  type FieldRow,
  type PayloadOf,
  REPORT_KINDS,
  type ReportKind,
  UNSUBSCRIBE_FIELD_TABLE,
  UNSUBSCRIBE_FIELDS,
  type UnsubscribeField,
} from "./report-fields.js";
export type { StatusCode, StatusRow } from "./status-row.js";
export {
  CALL_OUTCOMES,
  CALL_STATUSES,
  type CallOutcome,
  type CallStatus,
  type CallStatusClass,
  classifyCallStatus,
  classifyDeliveryStatus,
  DELIVERY_OUTCOMES,
  DELIVERY_REASONS,
  DELIVERY_STATUSES,
  type DeliveryOutcome,
  type DeliveryReason,
  type DeliveryStatus,
  type DeliveryStatusClass,
  type StatusClass,
  statusKey,
  UNRECOGNIZED_STATUS,
} from "./statuses.js";
export {
  isStatusConflict,
  REPORT_TIME_LEAD_MS,
  STATUS_PRECEDENCES,
  type StatusPoint,
  type StatusPrecedence,
  supersedes,
} from "./supersedes.js";
export {
  type BodyValue,
  type ComposedTemplate,
  type ParsedTemplate,
  type PathSegment,
  type Placeholder,
  type QueryParameter,
  TEMPLATE_FIELDS,
  TEMPLATE_FORMATS,
  TEMPLATE_METHODS,
  type TemplateFormat,
  type TemplateMethod,
  type TemplateParse,
  type TemplateProblem,
  type TemplateVariables,
} from "./template-types.js";
export { pathSegments, renderUrl, safeDecode } from "./template-url.js";
export { PROVIDER_TIME_ZONE } from "./time-zone.js";
export {
  CALL_VARIABLES,
  type CallVariable,
  composedValues,
  DELIVERY_VARIABLES,
  type DeliveryVariable,
  IDENTITY_VARIABLES,
  UNIX_READINGS,
  variablesOf,
} from "./variables.js";
