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
export {
  type Webhook,
  type WebhookPage,
  WebhookSchema,
  type WebhookStatus,
  type WebhookWire,
  WebhookWireSchema,
} from "./schemas.js";
