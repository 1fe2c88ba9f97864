import { fail, type JsonReply, PER_PAGE, paginate } from "./laravel.js";
import { type ApiRequest, notAllowed } from "./management-api.js";
import { isDay, pageOf } from "./pull-api.js";
import type { DayRange, VoiceLog } from "./voice-log.js";

// The provider's voice logs over the sandbox's simulated calls, in the envelope its page shows
// (v2/voice/logs.md): GET voice/calls (Call Logs, filter `datetime[end_at]`) and
// GET voice/recordings (Recordings, filter `datetime[r.created_at]`), each filter a day range
// written "Aug 07, 2019 - Aug 13, 2019"; { status: "OK", code: 200, message: "OK", data,
// links, meta }, 15 a page, newest first (as the Recordings sample lists them), the links
// without the query (as the Pull DLR pages show Laravel's). Without a filter, every call or
// recording of the last 60 days. What the page leaves out (errors) is the sandbox's choice.

type Route = ((request: ApiRequest) => JsonReply) | JsonReply | undefined;

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WRITTEN_DAY = /^([A-Za-z]{3}) (\d{1,2}), (\d{4})$/;

export function voiceLogsRoute(voice: VoiceLog, request: ApiRequest): Route {
  const { method, path } = request;
  const get = (handler: (r: ApiRequest) => JsonReply): Route =>
    method === "GET" || method === "HEAD" ? handler : notAllowed(method, path, "GET, HEAD");
  switch (path) {
    case "voice/calls":
      return get((r) =>
        page(r, "datetime[end_at]", (range, origin) => voice.callLogs(range, origin)),
      );
    case "voice/recordings":
      return get((r) =>
        page(r, "datetime[r.created_at]", (range, origin) => voice.recordings(range, origin)),
      );
  }
  return undefined;
}

function page<T>(
  request: ApiRequest,
  filter: string,
  find: (range: DayRange | undefined, origin: string) => T[],
): JsonReply {
  const written = request.query.get(filter);
  let range: DayRange | undefined;
  if (written !== null && written.trim() !== "") {
    range = dayRangeOf(written);
    if (range === undefined) {
      const message = `The ${filter} must be a range of days written like Aug 07, 2019 - Aug 13, 2019, the first not after the second.`;
      return fail(422, message, { [filter]: [message] });
    }
  }
  const base = new URL(request.baseUrl);
  const found = find(range, base.origin);
  const path = new URL(request.path, base).href;
  const paged = paginate(found, pageOf(request.query), path, [], PER_PAGE);
  return { status: 200, body: { status: "OK", code: 200, message: "OK", ...paged } };
}

/** "Aug 07, 2019 - Aug 13, 2019" as two days yyyy-mm-dd; undefined when it is not one. */
export function dayRangeOf(written: string): DayRange | undefined {
  const ends = written.split(" - ").map((end) => dayOf(end.trim()));
  if (ends.length !== 2) return undefined;
  const [from, to] = ends;
  if (from === undefined || to === undefined || to < from) return undefined;
  return { from, to };
}

/** "Aug 07, 2019" as "2019-08-07"; undefined when it is not a real day. */
function dayOf(written: string): string | undefined {
  const m = WRITTEN_DAY.exec(written);
  if (m === null) return undefined;
  const month = MONTHS.indexOf((m[1] as string).toLowerCase()) + 1;
  if (month === 0) return undefined;
  const day = `${m[3]}-${String(month).padStart(2, "0")}-${(m[2] as string).padStart(2, "0")}`;
  return isDay(day) ? day : undefined;
}
