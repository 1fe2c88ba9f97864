// A receiver's life around its requests: what is in flight, whether it still takes reports,
// whether its stores answer (`health`), and a graceful end (`close`).
import { answeredWithin, within } from "../async/deadlines.js";
import { isThenable, type MaybePromise } from "../async/maybe-promise.js";
import type { CloseOptions, HealthReport } from "./types.js";
import type { Config } from "./validate-options.js";

/** How long one health check may take before it counts as failed. */
const HEALTH_TIMEOUT_MS = 2000;
/** Just under the 10 s a container usually gets between SIGTERM and SIGKILL. */
const DEFAULT_CLOSE_TIMEOUT_MS = 9000;

interface Probe {
  name: string;
  label: string;
  ping: (() => Promise<void>) | undefined;
}

export interface ReceiverLifecycle {
  /** True once `close` was called: new reports get 503 `shutting_down`. */
  readonly closing: boolean;
  /** Keeps an unsettled reply in the set `close` waits for; returns it unchanged. */
  track<T>(response: MaybePromise<T>): MaybePromise<T>;
  health(): Promise<HealthReport>;
  close(options?: CloseOptions): Promise<void>;
}

export function receiverLifecycle(
  config: Pick<Config, "dedupe" | "journal" | "queue">,
): ReceiverLifecycle {
  const { dedupe, journal, queue } = config;
  const inFlight = new Set<Promise<unknown>>();
  let closed: Promise<void> | undefined;

  const probes: Probe[] = [];
  if (dedupe !== undefined) {
    probes.push({
      name: "dedupe",
      label: dedupe.name ?? "dedupe store",
      ping: bound(dedupe, dedupe.ping),
    });
  }
  if (journal !== undefined) {
    probes.push({ name: "journal", label: "failure journal", ping: bound(journal, journal.ping) });
  }
  if (queue !== undefined) {
    probes.push({
      name: "queue",
      label: queue.name === undefined ? "queue" : `queue "${queue.name}"`,
      ping: bound(queue, queue.ping),
    });
  }

  async function check(probe: Probe): Promise<{ ok: boolean; message?: string }> {
    if (probe.ping === undefined) return { ok: true };
    try {
      await answeredWithin(Promise.resolve().then(probe.ping), HEALTH_TIMEOUT_MS);
      return { ok: true };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { ok: false, message: `${probe.label}: ${reason || "unreachable"}` };
    }
  }

  const lifecycle: ReceiverLifecycle = {
    closing: false,

    track(response) {
      if (!isThenable(response)) return response;
      const pending = response as Promise<unknown>;
      inFlight.add(pending);
      const settled = () => inFlight.delete(pending);
      pending.then(settled, settled);
      return response;
    },

    async health() {
      const results = await Promise.all(probes.map(check));
      const checks: HealthReport["checks"] = {};
      probes.forEach((probe, i) => {
        checks[probe.name] = results[i] as { ok: boolean; message?: string };
      });
      if (lifecycle.closing) checks.receiver = { ok: false, message: "shutting down" };
      return { ok: Object.values(checks).every((c) => c.ok), checks };
    },

    close(options) {
      const timeoutMs = options?.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
      if (!Number.isFinite(timeoutMs) || timeoutMs < 0) {
        return Promise.reject(
          new TypeError(
            `reportkit: close({ timeoutMs }) takes a number of milliseconds, 0 or more (default ${DEFAULT_CLOSE_TIMEOUT_MS}), got ${String(options?.timeoutMs)}.`,
          ),
        );
      }
      (lifecycle as { closing: boolean }).closing = true;
      closed ??= (async () => {
        await settledWithin([...inFlight], timeoutMs);
        // Each closes only what it created itself; a failure to close is no reason to throw.
        await Promise.allSettled([dedupe?.close?.(), queue?.close?.()]);
      })();
      return closed;
    },
  };
  return lifecycle;
}

function bound<O extends object>(
  owner: O,
  ping: (() => Promise<void>) | undefined,
): (() => Promise<void>) | undefined {
  return ping === undefined ? undefined : () => ping.call(owner);
}

/** Resolves once every promise settled, or once `ms` passed. */
function settledWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  if (promises.length === 0) return Promise.resolve();
  return within(
    Promise.allSettled(promises).then(() => undefined),
    ms,
    () => undefined,
  );
}
