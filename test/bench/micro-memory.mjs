// `node --expose-gc micro.mjs --memory [off]`: the memory one receiver keeps (see memory below).
import { createReceiver } from "@reportkit/core";
import { fixtures, OK_BODY, request, uniqueJson } from "./micro-requests.mjs";
import { withCredential } from "./servers/common.mjs";

/**
 * `node --expose-gc micro.mjs --memory`: the RSS of one receiver (defaults: the in-memory
 * dedupe store holds up to 100,000 keys) after `small` and after `large` DLRs with ids of their
 * own through `handle`, each after a full GC, and the heap those keys take.
 */
export async function memory(small, large, label, options) {
  if (typeof globalThis.gc !== "function") throw new Error("run with --expose-gc");
  const next = uniqueJson(fixtures.dlr, "id");
  const receiver = createReceiver(withCredential({ onDelivery() {}, logger: false, ...options }));
  let sent = 0;
  const upTo = async (n) => {
    for (; sent < n; sent++) {
      const reply = await receiver.handle(request("application/json", next()));
      if (reply.body !== OK_BODY) throw new Error(`expected 200 ok, got ${reply.body}`);
    }
    globalThis.gc();
    globalThis.gc();
    return process.memoryUsage();
  };
  const before = await upTo(small);
  const after = await upTo(large);
  const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
  const maxKeys = options.dedupe === false ? 0 : 100_000;
  return {
    label,
    small,
    large,
    rssSmall: mb(before.rss),
    rssLarge: mb(after.rss),
    heapSmall: mb(before.heapUsed),
    heapLarge: mb(after.heapUsed),
    keysSmall: Math.min(small, maxKeys),
    keysLarge: Math.min(large, maxKeys),
  };
}
