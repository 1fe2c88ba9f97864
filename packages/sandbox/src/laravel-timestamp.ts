// The provider's (Laravel's) way of writing an instant, in its own module: the management API's
// resources and the pushed opt-outs both carry it.

/** "2022-10-19T07:40:13.000000Z": Laravel's ISO 8601 with microseconds. */
export function laravelTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}.${String(date.getUTCMilliseconds() * 1000).padStart(6, "0")}Z`;
}
