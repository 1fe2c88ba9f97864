// Memory stays flat while a 50 MB recording streams (issue 44): downloadRecording, in a process
// of its own (recording-memory-child.ts), takes a 50 MiB recording from the sandbox into a sink;
// the process's RSS, heap and buffers may not grow by more than a fraction of the file. The
// same file read whole (response.arrayBuffer()) is the control: it grows by the file's size,
// so the measure does see a download held in memory.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createClient } from "@reportkit/client";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterEach, expect, it } from "vitest";

const API_TOKEN = "recording-memory-token";
const LARGE = 50 * 1024 * 1024;
const MB = 1024 * 1024;
let sandbox: Sandbox | undefined;
const run = promisify(execFile);
const CHILD = fileURLToPath(new URL("./recording-memory-child.ts", import.meta.url));
type Growth = { rss: number; heapUsed: number; arrayBuffers: number };

afterEach(async () => {
  await sandbox?.close();
});

/** Runs the child with the two reports (30 s at most); its last line parsed. */
async function runChild(
  reports: unknown[],
): Promise<{ bytes: number; streamed: Growth; buffered: Growth }> {
  const { stdout } = await run(
    process.execPath,
    ["--expose-gc", "--import", "tsx", "--conditions=source", CHILD],
    {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      timeout: 30_000,
      env: {
        ...process.env,
        RECORDINGS: JSON.stringify(reports),
        // glibc's malloc keeps freed chunks for later and gives pages back when it sees fit:
        // the process's RSS then swings by ±25 MB from run to run whatever it holds (measured).
        // Chunks of 32 KiB and more mapped on their own and given back at once, RSS shows what
        // the process holds. (Other C libraries ignore these variables.)
        MALLOC_MMAP_THRESHOLD_: "32768",
        MALLOC_TRIM_THRESHOLD_: "131072",
      },
    },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
}

it("memory stays flat while a 50 MB recording streams", async () => {
  sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 3_600_000 });
  const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
  const hook = await client.webhooks.create({ name: "q", uri: "http://127.0.0.1:9/", status: 0 });
  const reportOf = (recordingBytes: number) => {
    const { report } = (sandbox as Sandbox).makeCall({ webhookId: hook.id, recordingBytes });
    return { recordingUrl: report.recording_url, endedAt: new Date().toISOString() };
  };
  const { bytes, streamed, buffered } = await runChild([reportOf(10 * MB), reportOf(LARGE)]);
  const shown = (g: Growth) =>
    `rss ${(g.rss / MB).toFixed(1)} MiB, heap ${(g.heapUsed / MB).toFixed(1)} MiB, array buffers ${(g.arrayBuffers / MB).toFixed(1)} MiB`;
  console.log(
    `50 MiB recording, growth at most: streamed ${shown(streamed)}; read whole ${shown(buffered)}`,
  );
  expect(bytes).toBe(LARGE);
  expect(streamed.rss).toBeLessThan(20 * MB);
  expect(streamed.heapUsed).toBeLessThan(20 * MB);
  expect(streamed.arrayBuffers).toBeLessThan(20 * MB);
  // The control: held whole, the same file shows.
  expect(buffered.arrayBuffers).toBeGreaterThan(40 * MB);
});
