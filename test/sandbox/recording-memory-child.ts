// Run by recording-memory.test.ts in a process of its own (node --expose-gc). First a warm-up:
// a 10 MiB recording through downloadRecording, so that every module and code path is loaded
// and the allocator has the working set a download needs. Then the measure: how much this
// process's memory grows while a 50 MiB recording streams into a sink that keeps nothing,
// sampled every MiB after a collection (what the download holds, not garbage not yet swept).
// Then the control, which shows the measure can see a download held whole: the same file read
// with response.arrayBuffer(). Prints one JSON line.
import { downloadRecording, type RecordedCall } from "@reportkit/client";

const [warmUp, large] = JSON.parse(process.env.RECORDINGS ?? "[]") as RecordedCall[];
const exposed = (globalThis as { gc?: () => void }).gc;
if (warmUp === undefined || large === undefined || exposed === undefined) {
  throw new Error("recording-memory-child: needs RECORDINGS (two reports) and --expose-gc");
}
const gc: () => void = exposed;
const MIB = 1_048_576;
type Growth = { rss: number; heapUsed: number; arrayBuffers: number };

/** A sink that keeps nothing, calling `every` each MiB. */
function discard(every: () => void = () => {}) {
  let since = 0;
  return new WritableStream<Uint8Array>({
    write(chunk) {
      since += chunk.byteLength;
      if (since >= MIB) {
        since = 0;
        every();
      }
    },
  });
}

/** The largest growth over the memory at the call, of what `run` holds while it runs. */
async function peakGrowth(run: (sample: () => void) => Promise<void>): Promise<Growth> {
  gc();
  const base = process.memoryUsage();
  const peak: Growth = { rss: 0, heapUsed: 0, arrayBuffers: 0 };
  const sample = () => {
    gc();
    const now = process.memoryUsage();
    for (const key of Object.keys(peak) as (keyof Growth)[]) {
      peak[key] = Math.max(peak[key], now[key] - base[key]);
    }
  };
  await run(sample);
  return peak;
}

await downloadRecording(warmUp, discard(gc), { allowHttp: true });
let bytes = 0;
const streamed = await peakGrowth(async (sample) => {
  const done = await downloadRecording(large, discard(sample), {
    allowHttp: true,
    maxBytes: 200 * MIB,
  });
  bytes = done.bytes;
  sample();
});
const buffered = await peakGrowth(async (sample) => {
  const whole = await (await fetch(large.recordingUrl as string)).arrayBuffer();
  sample();
  if (whole.byteLength !== bytes) throw new Error("the control read another file");
});
process.stdout.write(`${JSON.stringify({ bytes, streamed, buffered })}\n`);
