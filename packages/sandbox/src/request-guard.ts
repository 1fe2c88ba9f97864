import type http from "node:http";
import { fail, type JsonReply } from "./laravel.js";

// What the sandbox checks before a request reaches a route: the Host it was sent to (DNS
// rebinding), failed credentials (guessing), and the origin and type of a dashboard request
// that changes something (cross-site forgery once the printed key leaks).

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/**
 * The Host values the sandbox answers: the loopback names with its port, the address it
 * listens on (when that is neither loopback nor a wildcard) with its port, and each of
 * `allowedHosts` (a name alone takes any port, `name:port` only that one).
 */
export function hostCheck(
  listenHost: string,
  port: () => number,
  allowedHosts: readonly string[],
): (host: string | undefined) => boolean {
  const names = new Set(LOOPBACK_NAMES);
  if (listenHost !== "0.0.0.0" && listenHost !== "::") {
    names.add(listenHost.includes(":") ? `[${listenHost}]` : listenHost.toLowerCase());
  }
  const anyPort = new Set<string>();
  const exact = new Set<string>();
  for (const entry of allowedHosts) {
    const lower = entry.toLowerCase();
    if (/:\d+$/.test(lower)) exact.add(lower);
    else anyPort.add(lower);
  }
  return (host) => {
    // HTTP/1.0 may send none: such a client is no browser on a rebound name.
    if (host === undefined) return true;
    const lower = host.toLowerCase();
    if (exact.has(lower)) return true;
    const split = /^(.*?)(?::(\d+))?$/.exec(lower);
    const name = split?.[1] ?? lower;
    if (anyPort.has(name)) return true;
    return names.has(name) && split?.[2] === String(port());
  };
}

export function hostRefused(host: string): JsonReply {
  return fail(
    403,
    `Forbidden: the sandbox does not answer for Host ${JSON.stringify(host.slice(0, 100))} (a page on another name could drive it: DNS rebinding). Use http://127.0.0.1:<port>/ or http://localhost:<port>/, or allow the name with --allowed-host (allowedHosts).`,
  );
}

/** Failed credentials a client address may send in a window before every request of it waits. */
export const MAX_FAILED_AUTH = 10;
export const FAILED_AUTH_WINDOW_MS = 60_000;

/**
 * Counts failed credentials (API token or dashboard key) per client address. Past
 * MAX_FAILED_AUTH in FAILED_AUTH_WINDOW_MS, that address gets 429 for any request needing a
 * credential, right or wrong, until the oldest failure leaves the window: a guess then teaches
 * nothing, and a page guessing from the browser is slowed to 10 guesses a minute.
 */
export class FailedAuthLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The 429 while `address` is over the limit, else undefined. */
  check(address: string): JsonReply | undefined {
    const recent = this.recent(address);
    if (recent.length < MAX_FAILED_AUTH) return undefined;
    const waitMs = (recent[0] as number) + FAILED_AUTH_WINDOW_MS - this.now();
    return fail(
      429,
      `Too many failed credentials from this address (${MAX_FAILED_AUTH} a minute): wait, then use the API token (or the dashboard URL) the sandbox printed.`,
      undefined,
      { "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))) },
    );
  }

  failed(address: string): void {
    const recent = this.recent(address);
    recent.push(this.now());
    this.failures.set(address, recent.slice(-MAX_FAILED_AUTH));
  }

  private recent(address: string): number[] {
    const since = this.now() - FAILED_AUTH_WINDOW_MS;
    const recent = (this.failures.get(address) ?? []).filter((at) => at > since);
    if (recent.length === 0) this.failures.delete(address);
    return recent;
  }
}

/**
 * For a dashboard request that changes something (any method but GET and HEAD): refused
 * unless its body is declared `application/json` (a cross-site form or `no-cors` fetch can
 * only send text/plain, urlencoded or multipart without a preflight), and unless a browser's
 * `Origin` and `Sec-Fetch-Site` say it came from the dashboard's own page.
 */
export function dashboardWriteRefusal(req: http.IncomingMessage): JsonReply | undefined {
  const origin = req.headers.origin;
  const site = req.headers["sec-fetch-site"];
  if (
    (origin !== undefined && origin !== `http://${req.headers.host}`) ||
    (site !== undefined && site !== "same-origin" && site !== "none")
  ) {
    return fail(
      403,
      "Forbidden: a dashboard request that changes something must come from the dashboard's own page (its Origin is another site's).",
    );
  }
  const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    return fail(
      415,
      "A dashboard request that changes something must be sent as application/json (Content-Type), with the key in the x-reportkit-dashboard-key header.",
    );
  }
  return undefined;
}
