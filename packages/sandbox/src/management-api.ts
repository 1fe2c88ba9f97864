import { safeDecode } from "@reportkit/wire";
import { FieldCheck, FieldErrors, hasControlCharacter } from "./field-errors.js";
import { fail, type JsonReply, ok, paginate, webhookResource } from "./laravel.js";
import { resolveTemplate, templateOf } from "./render-composed.js";
import { type ChallengeOutcome, challengeJson } from "./verification-challenge.js";
import type { StoredWebhook, WebhookStore } from "./webhook-store.js";

export interface ApiRequest {
  method: string;
  /** Path below the base URL, e.g. "developer/webhooks/<id>". */
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown>;
  /** The base URL the request came in on, e.g. http://127.0.0.1:4010/api/v2/. */
  baseUrl: string;
}

/**
 * The documented management API (provider-interface.md 4.1-4.5): list, create (also at the
 * developer/webhook/create alias), show, edit and delete webhooks.
 */
export function managementRoute(
  store: WebhookStore,
  request: ApiRequest,
  challenge: Challenger,
): ((request: ApiRequest) => JsonReply | Promise<JsonReply>) | JsonReply | undefined {
  const { method, path } = request;
  if (path === "developer/webhooks") {
    if (method === "GET" || method === "HEAD") return () => list(store, request);
    if (method === "POST") return () => create(store, request, challenge);
    return notAllowed(method, path, "GET, HEAD, POST");
  }
  if (path === "developer/webhook/create") {
    if (method === "POST") return () => create(store, request, challenge);
    return notAllowed(method, path, "POST");
  }
  const item = /^developer\/webhooks\/([^/]+)$/.exec(path);
  if (item !== null) {
    const id = safeDecode(item[1] as string);
    if (method === "GET" || method === "HEAD") return () => show(store, id);
    if (method === "PUT" || method === "PATCH") return () => update(store, id, request);
    if (method === "DELETE") return () => remove(store, id);
    return notAllowed(method, path, "GET, HEAD, PUT, PATCH, DELETE");
  }
  return undefined;
}

/** Laravel's MethodNotAllowedHttpException text. */
export function notAllowed(method: string, path: string, allowed: string): JsonReply {
  return fail(
    405,
    `The ${method} method is not supported for route ${path}. Supported methods: ${allowed}.`,
    undefined,
    { allow: allowed },
  );
}

function list(store: WebhookStore, request: ApiRequest): JsonReply {
  const name = request.query.get("filter[name]") ?? undefined;
  const pageText = request.query.get("page") ?? "1";
  // Laravel reads a page it cannot use as page 1.
  const page = /^\d+$/.test(pageText) && Number(pageText) >= 1 ? Number(pageText) : 1;
  const query: [string, string][] = name === undefined ? [] : [["filter[name]", name]];
  const items = store.list(name).map((w) => webhookResource(w, "string"));
  const { data, links, meta } = paginate(
    items,
    page,
    new URL("developer/webhooks", request.baseUrl).href,
    query,
  );
  // The documentation's list example says "Created successfully"; the sandbox does the same.
  return ok("Created successfully", data, { links, meta });
}

/** Sends a webhook its verification request and keeps the outcome. */
export type Challenger = (webhook: StoredWebhook) => Promise<ChallengeOutcome>;

/**
 * Creates the webhook. A standard webhook created with a `token` is then sent its verification
 * request, as the provider verifies a webhook when it is created, before the reply (so a
 * request that follows the create finds it verified, or not). `challenge` (a sandbox-only
 * field): true puts the outcome in the reply's envelope as `challenge` (and sends the request,
 * token or not, to say why it could not be sent); false sends none.
 */
async function create(
  store: WebhookStore,
  request: ApiRequest,
  challenge: Challenger,
): Promise<JsonReply> {
  const fields = webhookFields(request.body, { token: true });
  const asked = challengeAsked(request.body.challenge);
  const webhook = store.create(fields);
  const resource = webhookResource(webhook, "string");
  if (asked === false || (asked === undefined && webhook.token === null)) {
    return ok("Created successfully", resource);
  }
  const outcome = await challenge(webhook);
  if (asked === undefined) return ok("Created successfully", resource);
  return ok("Created successfully", resource, { challenge: challengeJson(outcome) });
}

/**
 * `challenge` as given: undefined when absent.
 * @throws FieldErrors for a `challenge` that is neither a boolean nor "1"/"0"/"true"/"false".
 */
function challengeAsked(value: unknown): boolean | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (value === true || value === 1 || value === "1" || value === "true" || value === "on")
    return true;
  if (value === false || value === 0 || value === "0" || value === "false") return false;
  throw new FieldErrors({ challenge: ["The challenge field must be true or false."] });
}

function show(store: WebhookStore, id: string): JsonReply {
  const webhook = store.get(id);
  if (webhook === undefined) return notFound(id);
  return ok("OK", webhookResource(webhook, "integer"));
}

function update(store: WebhookStore, id: string, request: ApiRequest): JsonReply {
  const existing = store.get(id);
  if (existing === undefined) return notFound(id);
  // `token` on an edit is the sandbox's addition (the documented edit has none).
  const fields = webhookFields(request.body, { token: true });
  // A composed webhook's uri is its callback template: it must stay a valid one.
  const template = existing.composed;
  const composed =
    template === null
      ? undefined
      : renamed(() => resolveTemplate({ ...templateOf(template), url: fields.uri }));
  const webhook = store.update(id, { ...fields, composed });
  if (webhook === undefined) return notFound(id);
  return ok("Updated successfully", webhookResource(webhook, "string"));
}

function remove(store: WebhookStore, id: string): JsonReply {
  if (!store.delete(id)) return notFound(id);
  return ok("Deleted successfully", []);
}

function renamed<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof FieldErrors)) throw error;
    const { url, ...rest } = error.errors;
    throw new FieldErrors(url === undefined ? { ...rest } : { ...rest, uri: [...url] });
  }
}

export function notFound(id: string): JsonReply {
  return fail(404, `Webhook ${id.slice(0, 64)} not found.`);
}

export interface ValidFields {
  name: string;
  uri: string;
  status?: 0 | 1;
  secret?: string;
  token?: string;
}

/**
 * The create/edit rules, with Laravel's messages: name and uri required, uri an http(s) URL,
 * status 0 or 1, secret and token strings.
 * @throws FieldErrors
 */
export function webhookFields(
  body: Record<string, unknown>,
  options: { token: boolean; uriField?: string },
): ValidFields {
  const check = new FieldCheck();
  const uriField = options.uriField ?? "uri";
  const name = requiredString(check, "name", body.name, 255);
  const uri = requiredString(check, uriField, body[uriField], 2048);
  // URL parsing drops a tab or line break silently; the stored text would keep it.
  if (uri !== undefined && (!isHttpUrl(uri) || hasControlCharacter(uri))) {
    check.add(uriField, `The ${uriField} field must be a valid URL.`);
  }
  // A name is printed in terminals (the CLI's tables): no control characters.
  if (name !== undefined && hasControlCharacter(name)) {
    check.add("name", "The name field must not contain control characters.");
  }
  let status: 0 | 1 | undefined;
  const rawStatus = body.status;
  if (rawStatus !== undefined && rawStatus !== null && rawStatus !== "") {
    if (rawStatus === 1 || rawStatus === "1" || rawStatus === true) status = 1;
    else if (rawStatus === 0 || rawStatus === "0" || rawStatus === false) status = 0;
    else check.add("status", "The selected status is invalid.");
  }
  const secret = optionalString(check, "secret", body.secret, 255);
  const token = options.token ? optionalString(check, "token", body.token, 255) : undefined;
  check.done();
  const fields: ValidFields = { name: name as string, uri: uri as string };
  if (status !== undefined) fields.status = status;
  if (secret !== undefined) fields.secret = secret;
  if (token !== undefined) fields.token = token;
  return fields;
}

function requiredString(
  check: FieldCheck,
  field: string,
  value: unknown,
  max: number,
): string | undefined {
  if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) {
    check.add(field, `The ${field} field is required.`);
    return undefined;
  }
  if (typeof value !== "string") {
    check.add(field, `The ${field} field must be a string.`);
    return undefined;
  }
  if (value.length > max) {
    check.add(field, `The ${field} field must not be greater than ${max} characters.`);
    return undefined;
  }
  return value.trim();
}

function optionalString(
  check: FieldCheck,
  field: string,
  value: unknown,
  max: number,
): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") {
    check.add(field, `The ${field} field must be a string.`);
    return undefined;
  }
  if (value.length > max) {
    check.add(field, `The ${field} field must not be greater than ${max} characters.`);
    return undefined;
  }
  return value;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

export { FieldErrors };
