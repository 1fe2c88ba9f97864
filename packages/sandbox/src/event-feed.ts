import type { PushAttempt } from "./pusher.js";

/** What the sandbox tells its live views (the dashboard's event stream) as it happens. */
export type SandboxEvent =
  | { type: "attempt"; attempt: PushAttempt }
  /** A webhook was created, edited or deleted: read the list again. */
  | { type: "webhooks" };

/** A subscriber list: the pusher and the webhook store publish, event streams listen. */
export class EventFeed {
  private readonly listeners = new Set<(event: SandboxEvent) => void>();

  /** Calls `listener` with every event from now on; returns the function that stops it. */
  subscribe(listener: (event: SandboxEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(event: SandboxEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // One broken view must not stop the others, nor the pusher that emitted.
      }
    }
  }
}
