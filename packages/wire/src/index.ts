export { parseTemplate } from "./parse-template.js";
export {
  CALL_FIELDS,
  type CallField,
  type CallPayload,
  DELIVERY_FIELDS,
  type DeliveryExtraField,
  type DeliveryField,
  type DeliveryPayload,
  DOCUMENTED_CALL_SAMPLE,
  DOCUMENTED_DELIVERY_SAMPLE,
  type DocumentedCallPayload,
  type DocumentedDeliveryPayload,
  type ReportType,
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
  CALL_OUTCOMES,
  CALL_STATUS_TABLE,
  CALL_STATUSES,
  type CallOutcome,
  type CallStatus,
  classifyCallStatus,
  classifyDeliveryStatus,
  DELIVERY_OUTCOMES,
  DELIVERY_STATUS_TABLE,
  DELIVERY_STATUSES,
  type DeliveryOutcome,
  type DeliveryStatus,
  DLT_REJECTION,
  type StatusClass,
  statusKey,
  UNRECOGNIZED_STATUS,
} from "./statuses.js";
export {
  isStatusConflict,
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
