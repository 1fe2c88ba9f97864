export {
  CALL_FIELDS,
  type CallField,
  type CallPayload,
  DELIVERY_FIELDS,
  type DeliveryField,
  type DeliveryPayload,
  type ReportType,
} from "./payloads.js";
export {
  type BodyValue,
  type ComposedTemplate,
  type ParsedTemplate,
  type PathSegment,
  type Placeholder,
  parseTemplate,
  pathSegments,
  type QueryParameter,
  renderUrl,
  safeDecode,
  TEMPLATE_FORMATS,
  TEMPLATE_METHODS,
  type TemplateFormat,
  type TemplateMethod,
  type TemplateParse,
  type TemplateProblem,
  type TemplateVariables,
} from "./template.js";
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
