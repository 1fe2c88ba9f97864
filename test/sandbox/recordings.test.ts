// Call recordings kept, against the sandbox over real HTTP (issue 44): the sandbox pushes a call
// report to a real receiver, whose handler downloads the recording to a file; the same report,
// kept as a queue keeps it, after the 2-hour window (the sandbox's clock moved on) through a
// fresh URL of the Recordings API; an expired URL without API credentials; a recording over
// the bound; a redirect to another origin. And the sandbox's voice logs and recording host as
// the provider's page shows them.
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rename, rm, stat } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import {
  type Client,
  createClient,
  type DownloadRecordingOptions,
  downloadRecording,
  type RecordedCall,
  RecordingError,
} from "@reportkit/client";
import { type CallReport, createReceiver, parseReport } from "@reportkit/core";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { RECORDING_URL_TTL_MS, recordingExpiry } from "@reportkit/wire";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DOC_CALL_LOGS_RESPONSE_TEXT, DOC_RECORDINGS_RESPONSE_TEXT } from "../fixtures/pull-api.js";
import { listen, type Running, serveReceiver, stop } from "./servers.js";
import { orderedShapeOf } from "./shape.js";

const API_TOKEN = "recordings-sandbox-token-44";
const HOOK_SECRET = "recordings-hook-secret-44";
const HOUR = 3_600_000;
/** A recording of the default 23-second call: a WAV header and 8000 bytes a second. */
const CALL_RECORDING_BYTES = 44 + 23 * 8000;

let clock: number;
let sandbox: Sandbox;
let client: Client;
let dir: string;
let receiver: Running | undefined;

beforeEach(async () => {
  clock = Date.now();
  sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: HOUR, now: () => clock });
  client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
  dir = await mkdtemp(join(tmpdir(), "reportkit-recordings-"));
});
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

/** The docs' way to a file: written under a temporary name, renamed once whole, removed otherwise. */
async function keepRecording(
  report: RecordedCall,
  path: string,
  options: DownloadRecordingOptions,
) {
  const part = `${path}.part`;
  try {
    const done = await downloadRecording(report, Writable.toWeb(createWriteStream(part)), options);
    await rename(part, path);
    return done;
  } catch (error) {
    await rm(part, { force: true });
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** A webhook that is not pushed to: the call is only simulated and logged. */
async function quietCall(input: { recordingBytes?: number; to?: string } = {}) {
  const hook = await client.webhooks.create({
    name: "quiet",
    uri: "http://127.0.0.1:9/",
    status: 0,
  });
  const call = sandbox.makeCall({ webhookId: hook.id, ...input });
  const parsed = parseReport(call.report);
  if (!parsed.ok || parsed.report.type !== "call") throw new Error("not a call report");
  return parsed.report;
}

describe("a call report's recording", () => {
  it("downloaded in the handler within the window, without the API token at the recording host", async () => {
    const kept: CallReport[] = [];
    const stored: unknown[] = [];
    receiver = await serveReceiver(
      createReceiver({
        secret: HOOK_SECRET,
        async onCall(report) {
          kept.push(JSON.parse(JSON.stringify(report)));
          stored.push(
            await keepRecording(report, join(dir, `${report.mid}.wav`), {
              client,
              allowHttp: true,
              now: () => clock,
            }),
          );
        },
      }),
    );
    const hook = await client.webhooks.create({
      name: "calls",
      uri: `${receiver.url}/reports`,
      secret: HOOK_SECRET,
    });
    const call = sandbox.makeCall({ webhookId: hook.id });
    expect(await call.outcome).toBe("delivered");

    const [report] = kept;
    expect(report?.recordingUrl).toBe(call.report.recording_url);
    const url = new URL(report?.recordingUrl ?? "");
    expect(url.origin).toBe(new URL(sandbox.baseUrl).origin);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("7200");
    // The URL says itself when it expires: 2 hours after the call's end, the report's time.
    const ended = new Date(report?.endedAt ?? "");
    expect(recordingExpiry(url.href, ended)).toEqual({
      expiresAt: new Date(Math.floor(clock / 1000) * 1000 + RECORDING_URL_TTL_MS),
      source: "url",
    });
    expect(stored).toEqual([
      { bytes: CALL_RECORDING_BYTES, contentType: "audio/wav", refreshed: false, recording: null },
    ]);
    const file = await readFile(join(dir, `${call.report.mid}.wav`));
    expect(file.length).toBe(CALL_RECORDING_BYTES);
    expect(file.subarray(0, 4).toString()).toBe("RIFF");
    expect(file.subarray(8, 12).toString()).toBe("WAVE");
    const requests = sandbox.recordingRequests();
    expect(requests.map((r) => [r.method, r.path, r.status])).toEqual([["GET", url.pathname, 200]]);
    expect(requests[0]?.headers.authorization).toBeUndefined();
    expect(JSON.stringify(requests[0]?.headers)).not.toContain(API_TOKEN);
  });

  it("the same report after the window: through a fresh URL from the Recordings API", async () => {
    const report = JSON.parse(JSON.stringify(await quietCall()));
    clock += 2 * HOUR + 60_000;
    const path = join(dir, "late.wav");
    const done = await keepRecording(report, path, { client, allowHttp: true, now: () => clock });
    expect(done).toMatchObject({ bytes: CALL_RECORDING_BYTES, refreshed: true });
    expect(done.recording?.callTo).toBe(report.to);
    expect(new URL(done.recording?.audio ?? "").searchParams.get("X-Amz-Expires")).toBe("3600");
    expect((await stat(path)).size).toBe(CALL_RECORDING_BYTES);
    // Known expired by its own parameters: the old URL was not even tried.
    const requests = sandbox.recordingRequests();
    expect(requests.map((r) => r.status)).toEqual([200]);
    expect(requests[0]?.path).toBe(new URL(report.recordingUrl).pathname);
    expect(requests[0]?.headers.authorization).toBeUndefined();
  });

  it("refused as expired by the host (a downloader whose clock disagrees): fresh URL, then the file", async () => {
    const report = await quietCall();
    clock += 3 * HOUR;
    // By the real clock the URL still has two hours; the sandbox's says it is gone.
    const done = await keepRecording(report, join(dir, "refused.wav"), { client, allowHttp: true });
    expect(done).toMatchObject({ bytes: CALL_RECORDING_BYTES, refreshed: true });
    expect(sandbox.recordingRequests().map((r) => r.status)).toEqual([403, 200]);
  });

  it("an expired URL without API credentials fails with a message that says what is needed", async () => {
    const report = await quietCall();
    clock += 2 * HOUR;
    const path = join(dir, "no-client.wav");
    for (const options of [{ now: () => clock }, {}]) {
      const error = await keepRecording(report, path, { allowHttp: true, ...options }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RecordingError);
      expect(error).toMatchObject({ reason: "expired" });
      expect((error as Error).message).toMatch(
        /A fresh one comes from the provider's Recordings API, which needs the account's API credentials: pass \{ client: createClient\(\{ baseUrl, token \}\) \} \(token: the account's API access token, REPORTKIT_API_TOKEN\) in downloadRecording's options\.$/,
      );
      expect(await exists(path)).toBe(false);
      expect(await exists(`${path}.part`)).toBe(false);
    }
    // The first knew by the URL's own time; the second asked the host, which said so.
    expect(sandbox.recordingRequests().map((r) => r.status)).toEqual([403]);
  });

  it("a recording larger than the bound stops with a clear error, and no partial file claimed as done", async () => {
    const report = await quietCall({ recordingBytes: 3_000_000 });
    const path = join(dir, "big.wav");
    const error = await keepRecording(report, path, {
      client,
      allowHttp: true,
      maxBytes: 1_000_000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecordingError);
    expect(error).toMatchObject({ reason: "too-large" });
    expect((error as Error).message).toBe(
      "The recording is larger than maxBytes, 1000000 bytes (the host declared 3000000 bytes): stopped, the sink aborted, nothing stored as complete. Raise maxBytes in downloadRecording's options if recordings this large are expected.",
    );
    expect(await exists(path)).toBe(false);
    expect(await exists(`${path}.part`)).toBe(false);
    // Within the bound it is taken whole.
    const done = await keepRecording(report, path, { allowHttp: true, maxBytes: 3_000_000 });
    expect(done.bytes).toBe(3_000_000);
    expect((await stat(path)).size).toBe(3_000_000);
  });

  it("a redirect to another origin is refused: the recording is not fetched from there", async () => {
    const report = await quietCall();
    // A host in front that sends the download on to the sandbox, another origin.
    const server = http.createServer((_req, res) =>
      res.writeHead(302, { location: report.recordingUrl ?? "" }).end(),
    );
    const front = await listen(server);
    try {
      const moved = { ...report, recordingUrl: `${front}/rc/c.wav?X-Amz-Signature=s` };
      const error = await keepRecording(moved, join(dir, "moved.wav"), {
        client,
        allowHttp: true,
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ reason: "redirect-refused", status: 302 });
      expect((error as Error).message).toContain(
        `to another origin, ${new URL(sandbox.baseUrl).origin}: not followed`,
      );
      expect(sandbox.recordingRequests()).toEqual([]);
    } finally {
      await stop(server);
    }
  });
});

describe("the sandbox's voice logs and recording host", () => {
  const doc = (text: string) => JSON.parse(text);
  async function get(path: string) {
    const response = await fetch(new URL(path, sandbox.baseUrl), {
      headers: { authorization: `Bearer ${API_TOKEN}`, accept: "application/json" },
    });
    return { status: response.status, json: await response.json() };
  }

  it("answers GET voice/recordings as the page's example: same keys, same order, same types", async () => {
    const report = await quietCall();
    const { status, json } = await get("voice/recordings");
    expect(status).toBe(200);
    expect(orderedShapeOf(json)).toEqual(orderedShapeOf(doc(DOC_RECORDINGS_RESPONSE_TEXT)));
    expect(json.data[0]).toMatchObject({
      call_from: report.from,
      call_to: report.to,
      duration: "00:00:23",
      agent: null,
    });
    expect(json.meta).toMatchObject({ per_page: 15, total: 1 });
  });

  it("answers GET voice/calls with the page's keys in its order; an unrecorded call's audio null", async () => {
    const hook = await client.webhooks.create({ name: "q", uri: "http://127.0.0.1:9/", status: 0 });
    sandbox.makeCall({ webhookId: hook.id, status: "BUSY" });
    const { json } = await get("voice/calls");
    const sample = doc(DOC_CALL_LOGS_RESPONSE_TEXT);
    expect(Object.keys(json)).toEqual(Object.keys(sample));
    expect(Object.keys(json.data[0])).toEqual(Object.keys(sample.data[0]));
    expect(orderedShapeOf(json.meta)).toEqual(orderedShapeOf(sample.meta));
    expect(json.data[0]).toMatchObject({ status: "BUSY", duration: "00:00:00", audio: null });
  });

  it("filters by the day range written as the page writes it; 422 for another writing", async () => {
    await quietCall();
    const today = new Date(clock);
    const day = new Intl.DateTimeFormat("en-US", {
      timeZone: "Asia/Kolkata",
      month: "short",
      day: "2-digit",
      year: "numeric",
    }).format(today);
    const range = encodeURIComponent(`${day} - ${day}`);
    expect((await get(`voice/recordings?datetime[r.created_at]=${range}`)).json.data).toHaveLength(
      1,
    );
    const before = encodeURIComponent("Aug 07, 2019 - Aug 13, 2019");
    expect((await get(`voice/calls?datetime[end_at]=${before}`)).json.data).toEqual([]);
    const wrong = await get("voice/recordings?datetime[r.created_at]=2019-08-07");
    expect(wrong.status).toBe(422);
    expect(wrong.json.message).toBe(
      "The datetime[r.created_at] must be a range of days written like Aug 07, 2019 - Aug 13, 2019, the first not after the second.",
    );
  });

  it("POST sandbox/calls takes recording_bytes (a large recording on request), 422 for a size it does not make", async () => {
    const hook = await client.webhooks.create({ name: "q", uri: "http://127.0.0.1:9/", status: 0 });
    const post = (body: Record<string, unknown>) =>
      fetch(new URL("sandbox/calls", sandbox.baseUrl), {
        method: "POST",
        headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ webhook_id: hook.id, ...body }),
      });
    const made = await (await post({ recording_bytes: "1000000" })).json();
    const file = await fetch(made.data.report.recording_url, { method: "HEAD" });
    expect(file.headers.get("content-length")).toBe("1000000");
    const wrong = await post({ recording_bytes: 10 });
    expect(wrong.status).toBe(422);
    expect((await wrong.json()).errors).toEqual({
      recording_bytes: ["The recording bytes field must be a whole number from 44 to 2147483648."],
    });
  });

  it("the host checks the signature, answers as S3, and forgets a recording after 60 days", async () => {
    const report = await quietCall();
    const url = new URL(report.recordingUrl ?? "");
    url.searchParams.set("X-Amz-Signature", "0".repeat(64));
    const forged = await fetch(url);
    expect(forged.status).toBe(403);
    expect(await forged.text()).toMatch(/<Code>SignatureDoesNotMatch<\/Code>/);
    clock += 2 * HOUR;
    const expired = await fetch(report.recordingUrl ?? "");
    expect(expired.status).toBe(403);
    expect(await expired.text()).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<Error><Code>AccessDenied<\/Code><Message>Request has expired<\/Message><X-Amz-Expires>7200<\/X-Amz-Expires>/,
    );
    const [fresh] = (await client.recordings.list()).data;
    expect(
      (await fetch(fresh?.audio ?? "", { method: "HEAD" })).headers.get("content-length"),
    ).toBe(String(CALL_RECORDING_BYTES));
    clock += 60 * 24 * HOUR;
    expect((await client.recordings.list()).data).toEqual([]);
    const gone = await fetch(fresh?.audio ?? "");
    expect(gone.status).toBe(404);
    expect(await gone.text()).toMatch(/<Code>NoSuchKey<\/Code>/);
    expect(sandbox.recordingRequests().map((r) => [r.method, r.status])).toEqual([
      ["GET", 403],
      ["GET", 403],
      ["HEAD", 200],
      ["GET", 404],
    ]);
  });
});
