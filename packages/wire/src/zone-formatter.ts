// The one Intl setup for wall-clock time in an IANA zone: core reads the provider's zone-less
// times with it (the zone's offset at an instant), the sandbox writes them with it. Intl is
// the only runtime-neutral zone database.

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * A formatter of instants as wall-clock time in an IANA zone, for `formatToParts`: year,
 * month, day, hour (0-23), minute and second, each two digits but the year. Built once per zone.
 * @throws RangeError (the runtime's own) when the runtime does not know the zone: callers say
 * which option named it.
 * @example
 * const parts = zoneFormatter("Asia/Kolkata").formatToParts(new Date(0));
 * // year "1970", month "01", day "01", hour "05", minute "30", second "00"
 */
export function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/**
 * "yyyy-mm-dd HH:MM:SS" (24-hour) for an instant, as wall-clock time in an IANA zone: how the
 * provider writes its zone-less times (the sandbox and the testing kit write them so).
 * @throws RangeError (the runtime's own) when the runtime does not know the zone
 */
export function wallClockText(date: Date, timeZone: string): string {
  const parts: Record<string, string> = {};
  for (const part of zoneFormatter(timeZone).formatToParts(date)) parts[part.type] = part.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}
