// A receiver's life around its requests: whether it still takes reports, whether its stores
// answer (`health`), and a graceful end (`close`) that waits for the replies still in flight.
import type { CloseOptions, HealthReport } from "../base/types.js";
import { answeredWithin, within } from "../base/within.js";
import type { Config } from "./check-options.js";

const HEALTH_TIMEOUT_MS = 2000;
/** Just under the 10 s a container usually gets between SIGTERM and SIGKILL. */
const DEFAULT_CLOSE_TIMEOUT_MS = 9000;

type Pingable = { ping?(): Promise<void> };

/** `inFlight`: the replies the receiver has not sent yet (it keeps the set: see `handle`). */
export function lifecycleOf(
  config: Pick<Config, "dedupe" | "journal" | "queue">,
  inFlight: ReadonlySet<Promise<unknown>>,
) {
  const { dedupe, journal, queue } = config;
  let closed: Promise<void> | undefined;
  const probes: [name: string, label: string, owner: Pingable][] = [];
  if (dedupe !== undefined) probes.push(["dedupe", dedupe.name ?? "dedupe store", dedupe]);
  if (journal !== undefined) probes.push(["journal", "failure journal", journal]);
  if (queue !== undefined) {
    probes.push(["queue", queue.name === undefined ? "queue" : `queue "${queue.name}"`, queue]);
  }

  async function check(label: string, owner: Pingable): Promise<{ ok: boolean; message?: string }> {
    if (owner.ping === undefined) return { ok: true };
    try {
      const ping = Promise.resolve().then(() => owner.ping?.());
      await answeredWithin(ping, HEALTH_TIMEOUT_MS);
      return { ok: true };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { ok: false, message: `${label}: ${reason || "unreachable"}` };
    }
  }

  const lifecycle = {
    /** True once `close` was called: new reports get 503 `shutting_down`. */
    closing: false,
    async health(): Promise<HealthReport> {
      const results = probes.map(async ([name, label, owner]) => [name, await check(label, owner)]);
      const checks: HealthReport["checks"] = Object.fromEntries(await Promise.all(results));
      if (lifecycle.closing) checks.receiver = { ok: false, message: "shutting down" };
      return { ok: Object.values(checks).every((c) => c.ok), checks };
    },
    close(options?: CloseOptions): Promise<void> {
      const timeoutMs = options?.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
      if (!Number.isFinite(timeoutMs) || timeoutMs < 0) {
        // The caller's mistake, said at the call: the promise close() returns never rejects.
        throw new TypeError(
          `reportkit: close({ timeoutMs }) takes a number of milliseconds, 0 or more (default ${DEFAULT_CLOSE_TIMEOUT_MS}), got ${String(options?.timeoutMs)}.`,
        );
      }
      lifecycle.closing = true;
      closed ??= (async () => {
        await within(Promise.allSettled([...inFlight]), timeoutMs, () => []);
        // Each closes only what it created itself; a failure to close is no reason to throw.
        await Promise.allSettled([dedupe?.close?.(), queue?.close?.()]);
      })();
      return closed;
    },
  };
  return lifecycle;
}
