// The reports the inbox holds a transaction for, from the claim to the commit or rollback. A
// claim's connection never outlives it: when Postgres ends the session (the transaction sat idle
// past the lease) or the connection fails, or the lease runs out here (a server that stopped
// answering sends nothing), the connection is destroyed at once, never handed out again. The
// handler's `ctx.tx` refuses statements once its report is over, so a write kept for later can
// never land in another report's transaction on the same connection.
import type pg from "pg";
import { type Connection, releaseClient } from "./connection.js";

/** A claim whose transaction is open, or was ended under the handler. */
export interface HeldClaim {
  readonly key: string;
  readonly client: pg.PoolClient;
  /** Why the connection was closed before `complete` or `release`, if it was. */
  readonly ended: string | undefined;
}

export interface ClaimTracker {
  /** Holds `client`'s open transaction for `owner` until `take`. */
  hold(owner: string, key: string, client: pg.PoolClient): void;
  /** The handler's `ctx.tx`: the transaction's client, refusing statements once it is over. */
  tx(owner: string): pg.PoolClient;
  /** Ends `owner`'s claim for `complete` ("completed") or `release` ("released"). */
  take(owner: string, as: "completed" | "released"): HeldClaim;
  /** Closes every connection still held (the store is closing): their transactions roll back. */
  endAll(reason: string): void;
}

interface Held {
  readonly key: string;
  readonly client: pg.PoolClient;
  tx: pg.PoolClient | undefined;
  /** Why `ctx.tx` refuses statements: set when the report is over. */
  over: string | undefined;
  ended: string | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * `leaseMs`: how long Postgres lets a report's transaction sit idle; `graceMs` more and the
 * connection is closed here too, whatever the server said.
 */
export function claimTracker(db: Connection, leaseMs: number, graceMs: number): ClaimTracker {
  const held = new Map<string, Held>();

  function end(claim: Held, reason: string, error?: Error): void {
    if (claim.over !== undefined) return;
    claim.over = `its transaction was ended (${reason})`;
    claim.ended = reason;
    clearTimeout(claim.timer);
    db.unwatch(claim.client);
    releaseClient(claim.client, error ?? new Error(reason));
  }

  function find(owner: string, what: string): Held {
    const claim = held.get(owner);
    if (claim === undefined) {
      throw new Error(`postgresInbox: ${what} for an attempt that holds no claim (${owner}).`);
    }
    return claim;
  }

  return {
    hold(owner, key, client) {
      const claim: Held = {
        key,
        client,
        tx: undefined,
        over: undefined,
        ended: undefined,
        timer: undefined,
      };
      claim.timer = setTimeout(
        () => end(claim, `its lease of ${leaseMs} ms ran out`),
        leaseMs + graceMs,
      );
      claim.timer.unref?.();
      db.watch(client, (error) =>
        end(claim, `the connection failed: ${error.message || "no reason given"}`, error),
      );
      held.set(owner, claim);
    },

    tx(owner) {
      const claim = find(owner, "scope");
      claim.tx ??= guarded(claim);
      return claim.tx;
    },

    take(owner, as) {
      const claim = find(owner, as === "completed" ? "complete" : "release");
      held.delete(owner);
      if (claim.over === undefined) {
        claim.over = as === "completed" ? "the report was completed" : "the report was released";
        clearTimeout(claim.timer);
        db.unwatch(claim.client);
      }
      return claim;
    },

    endAll(reason) {
      for (const claim of held.values()) end(claim, reason);
    },
  };
}

/**
 * The claim's client for the handler: `query` refuses once the report is over (a rejection,
 * or the callback's error, naming the report's key), `release` always (the store releases it);
 * everything else is the client's own.
 */
function guarded(claim: Held): pg.PoolClient {
  const { client } = claim;
  const refusal = () =>
    new Error(
      `postgresInbox: a statement on ctx.tx of the report ${claim.key} after ${claim.over}: it would run outside that report's transaction (on a connection another report may hold). Make every write through ctx.tx before the handler returns, and await it.`,
    );
  const query = (...args: unknown[]): unknown => {
    if (claim.over === undefined) {
      return (client.query as (...a: unknown[]) => unknown).apply(client, args);
    }
    const error = refusal();
    const callback = args[args.length - 1];
    if (typeof callback === "function") {
      queueMicrotask(() => callback(error));
      return undefined;
    }
    return Promise.reject(error);
  };
  const release = () => {
    throw new Error(
      `postgresInbox: ctx.tx of the report ${claim.key} is released by the store once the handler settles; do not release it yourself.`,
    );
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === "query") return query;
      if (property === "release") return release;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
