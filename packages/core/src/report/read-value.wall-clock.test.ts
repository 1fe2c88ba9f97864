import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wallClockReader } from "./read-value.js";

/**
 * The zone's offset at an instant, from the runtime's own date formatting (Swedish locale
 * writes "2021-04-09 16:27:51"): another path through the zone database than the reader's.
 */
function offsetAt(timeZone: string, utc: number): number {
  const at = Math.floor(utc / 1000) * 1000;
  const local = new Date(at).toLocaleString("sv-SE", { timeZone });
  const [y, mo, d, h, mi, s] = local.split(/[- :]/).map(Number) as number[];
  return Date.UTC(y as number, (mo as number) - 1, d, h, mi, s) - at;
}

/** The instant of a wall-clock time: the offset there, found in two steps, without caching. */
function reference(timeZone: string, wall: number): number {
  return wall - offsetAt(timeZone, wall - offsetAt(timeZone, wall));
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");
const text = (wall: number) => {
  const d = new Date(wall);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
};

// Zones with transitions (DST gaps and overlaps, a 30-minute DST, a +05:45 offset) and,
// before about 1900, local mean time offsets that are not whole quarter hours.
const ZONES = [
  "Asia/Kolkata",
  "America/New_York",
  "Europe/London",
  "Australia/Lord_Howe",
  "Asia/Kathmandu",
  "America/Sao_Paulo",
];

describe("wallClockReader", () => {
  it("reads every wall-clock time as Intl's offsets give it, whatever was read before", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        // 1850 to 2040, whole seconds; neighbours of the previous time, to cross transitions.
        fc.array(fc.integer({ min: -3_786_825_600, max: 2_208_988_800 }), {
          minLength: 1,
          maxLength: 20,
        }),
        fc.integer({ min: -7200, max: 7200 }),
        (timeZone, seconds, step) => {
          const read = wallClockReader(timeZone);
          for (const s of seconds.flatMap((t) => [t, t + step, t + step * 2])) {
            const wall = s * 1000;
            expect(read(text(wall))?.getTime(), `${timeZone} ${text(wall)}`).toBe(
              reference(timeZone, wall),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads the wall-clock times around a DST gap and overlap", () => {
    const read = wallClockReader("America/New_York");
    // 2021-03-14 02:30 does not exist (clocks jump 02:00 → 03:00); 2021-11-07 01:30 happens twice.
    expect(read("2021-03-14 01:59:59")?.toISOString()).toBe("2021-03-14T06:59:59.000Z");
    expect(read("2021-03-14 02:30:00")?.getTime()).toBe(
      reference("America/New_York", Date.UTC(2021, 2, 14, 2, 30)),
    );
    expect(read("2021-03-14 03:00:00")?.toISOString()).toBe("2021-03-14T07:00:00.000Z");
    expect(read("2021-11-07 01:30:00")?.getTime()).toBe(
      reference("America/New_York", Date.UTC(2021, 10, 7, 1, 30)),
    );
    expect(read("2021-11-07 02:00:00")?.toISOString()).toBe("2021-11-07T07:00:00.000Z");
  });

  it("does not carry an offset of odd minutes and seconds across its quarter hour", () => {
    // Madras time (+05:21:10) gave way to IST (+05:30) at 1906-01-01 00:00: 00:00 to 00:08:50
    // never happened, and the quarter hour from 00:00 holds both offsets.
    const read = wallClockReader("Asia/Kolkata");
    for (const wall of ["1906-01-01 00:05:00", "1906-01-01 00:10:00", "1906-01-01 00:05:00"]) {
      const [date, time] = wall.split(" ") as [string, string];
      const [y, mo, d] = date.split("-").map(Number) as [number, number, number];
      const [h, mi, s] = time.split(":").map(Number) as [number, number, number];
      expect(read(wall)?.getTime(), wall).toBe(
        reference("Asia/Kolkata", Date.UTC(y, mo - 1, d, h, mi, s)),
      );
    }
  });
});
