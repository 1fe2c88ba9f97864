import { laravelTimestamp } from "./laravel-timestamp.js";
import type { StoredWebhook } from "./webhook-store.js";

export { laravelTimestamp };

// The management API's wire shapes: the provider's envelope { status, code, message, data }
// around Laravel API resources and Laravel's length-aware paginator.

export const PER_PAGE = 15;
const MASK = "********";

export interface JsonReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * A webhook as the API serves it: secret and verification_code masked, status a string in
 * list/create/edit and an integer in show (the provider's documented inconsistency).
 */
export function webhookResource(webhook: StoredWebhook, statusAs: "string" | "integer") {
  return {
    id: webhook.id,
    name: webhook.name,
    uri: webhook.uri,
    secret: webhook.secret === null ? null : MASK,
    verification_code: MASK,
    status: statusAs === "string" ? String(webhook.status) : webhook.status,
    created_at: laravelTimestamp(webhook.createdAt),
    updated_at: laravelTimestamp(webhook.updatedAt),
  };
}

export function ok(message: string, data: unknown, extra?: Record<string, unknown>): JsonReply {
  return { status: 200, body: { status: "OK", code: 200, message, data, ...extra } };
}

/**
 * The sandbox's error shape (the provider's is not documented): the envelope's status/code/
 * message, plus Laravel's `errors` object for validation failures.
 */
export function fail(
  status: number,
  message: string,
  errors?: Readonly<Record<string, readonly string[]>>,
  headers?: Record<string, string>,
): JsonReply {
  const body: Record<string, unknown> = { status: "Error", code: status, message };
  if (errors !== undefined) body.errors = errors;
  return headers === undefined ? { status, body } : { status, body, headers };
}

interface PageLink {
  url: string | null;
  label: string;
  active: boolean;
}

/**
 * Laravel's LengthAwarePaginator as an API resource collection: `links` and `meta`, with the
 * numbered window (UrlWindow, 3 on each side) and its "..." gaps. `query` is what the links
 * keep besides `page` (the Pull DLR API's keep nothing, as its page shows); `perPage` 15 as the
 * management API, 100 as the Pull DLR API.
 */
export function paginate<T>(
  items: readonly T[],
  page: number,
  path: string,
  query: [string, string][],
  perPage = PER_PAGE,
) {
  const total = items.length;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const start = (page - 1) * perPage;
  const data = items.slice(start, start + perPage);
  const url = (n: number) => {
    const params = new URLSearchParams([...query, ["page", String(n)]]);
    return `${path}?${params.toString()}`;
  };
  const links: PageLink[] = [
    { url: page > 1 ? url(page - 1) : null, label: "&laquo; Previous", active: false },
  ];
  for (const element of urlWindow(page, lastPage)) {
    if (element === "...") links.push({ url: null, label: "...", active: false });
    else links.push({ url: url(element), label: String(element), active: element === page });
  }
  links.push({ url: page < lastPage ? url(page + 1) : null, label: "Next &raquo;", active: false });

  return {
    data,
    links: {
      first: url(1),
      last: url(lastPage),
      prev: page > 1 ? url(page - 1) : null,
      next: page < lastPage ? url(page + 1) : null,
    },
    meta: {
      current_page: page,
      from: data.length === 0 ? null : start + 1,
      last_page: lastPage,
      links,
      path,
      per_page: perPage,
      to: data.length === 0 ? null : start + data.length,
      total,
    },
  };
}

/** Laravel's UrlWindow with onEachSide = 3. */
function urlWindow(current: number, last: number): (number | "...")[] {
  const range = (from: number, to: number) =>
    Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
  const onEachSide = 3;
  if (last < onEachSide * 2 + 8) return range(1, last);
  const window = onEachSide + 4;
  if (current <= window) return [...range(1, window + onEachSide), "...", ...range(last - 1, last)];
  if (current > last - window) {
    return [1, 2, "...", ...range(last - (window + (onEachSide - 1)), last)];
  }
  return [
    1,
    2,
    "...",
    ...range(current - onEachSide, current + onEachSide),
    "...",
    ...range(last - 1, last),
  ];
}
