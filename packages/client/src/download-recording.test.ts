// downloadRecording against real HTTP servers on localhost standing in for a recording host:
// what it sends (no credential), which redirects it follows, its bounds (size, time), what its
// sink sees on success and on failure, and what its errors say (never the URL's signature).
// The whole story against the sandbox, with the Recordings API, is test/sandbox/recordings.test.ts.
import type http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { closeServers, failure, serve } from "../../../test/support/client-api-server.js";
import { type DownloadRecordingOptions, downloadRecording } from "./download-recording.js";
import { RecordingError } from "./errors.js";
import type { RecordedCall } from "./recorded-call.js";

afterEach(closeServers);

/** A recording host: `answer` writes the n-th response; `seen` keeps each request's headers. */
async function host(answer: (res: http.ServerResponse, n: number, path: string) => void) {
  const seen: { path: string; headers: http.IncomingHttpHeaders }[] = [];
  const api = await serve((res, n, req) => {
    seen.push({ path: req.url ?? "", headers: req.headers });
    answer(res, n, req.url ?? "");
  });
  return { origin: new URL(api.baseUrl).origin, seen };
}

/** A WritableStream that keeps what it is given and how it ended. */
function memorySink() {
  const chunks: Uint8Array[] = [];
  const state = { closed: false, aborted: undefined as unknown, written: 0 };
  const stream = new WritableStream<Uint8Array>({
    write(chunk) {
      chunks.push(chunk);
      state.written += chunk.byteLength;
    },
    close() {
      state.closed = true;
    },
    abort(reason) {
      state.aborted = reason;
    },
  });
  return { stream, state, bytes: () => Buffer.concat(chunks) };
}

const AUDIO = Buffer.from("RIFF....WAVEfmt a small recording");
const HTTP = { allowHttp: true } satisfies DownloadRecordingOptions;
const fresh = (url: string): RecordedCall => ({
  recordingUrl: url,
  endedAt: new Date(),
});

function sendAudio(res: http.ServerResponse, body: Buffer = AUDIO) {
  res.writeHead(200, { "content-type": "audio/wav", "content-length": String(body.length) });
  res.end(body);
}

describe("what is fetched", () => {
  it("takes the file without any credential, follows a redirect within its origin", async () => {
    const rec = await host((res, n) =>
      n === 0 ? res.writeHead(302, { location: "/moved/c-1.wav" }).end() : sendAudio(res),
    );
    const sink = memorySink();
    const done = await downloadRecording(
      fresh(`${rec.origin}/rc/c-1.wav?X-Amz-Signature=s`),
      sink.stream,
      HTTP,
    );
    expect(done).toEqual({
      bytes: AUDIO.length,
      contentType: "audio/wav",
      refreshed: false,
      recording: null,
    });
    expect(sink.bytes()).toEqual(AUDIO);
    expect(sink.state).toMatchObject({ closed: true, aborted: undefined });
    expect(rec.seen.map((r) => r.path)).toEqual([
      "/rc/c-1.wav?X-Amz-Signature=s",
      "/moved/c-1.wav",
    ]);
    for (const { headers } of rec.seen) {
      expect(headers.authorization).toBeUndefined();
      expect(headers.cookie).toBeUndefined();
    }
  });

  it("refuses a redirect to another origin, and never asks it; the sink aborted", async () => {
    const elsewhere = await host((res) => sendAudio(res));
    const rec = await host((res) =>
      res.writeHead(307, { location: `${elsewhere.origin}/x.wav` }).end(),
    );
    const sink = memorySink();
    const error = await failure(downloadRecording(fresh(`${rec.origin}/c.wav`), sink.stream, HTTP));
    expect(error).toBeInstanceOf(RecordingError);
    expect(error).toMatchObject({ reason: "redirect-refused", status: 307 });
    expect((error as Error).message).toBe(
      `The recording host ${new URL(rec.origin).host} redirected the download (307) to another origin, ${elsewhere.origin}: not followed. A recording is taken from the host its URL names only.`,
    );
    expect(elsewhere.seen).toEqual([]);
    expect(sink.state.aborted).toBe(error);
    expect(sink.state.closed).toBe(false);
  });

  it("follows 5 redirects at most", async () => {
    const rec = await host((res, n) => res.writeHead(302, { location: `/hop-${n + 1}` }).end());
    const error = await failure(
      downloadRecording(fresh(`${rec.origin}/c.wav`), memorySink().stream, HTTP),
    );
    expect(error).toMatchObject({ reason: "redirect-refused" });
    expect((error as Error).message).toMatch(/more than 5 times/);
    expect(rec.seen).toHaveLength(6);
  });

  it("takes https only unless told, and a URL only: nothing is sent otherwise", async () => {
    const rec = await host((res) => sendAudio(res));
    const insecure = await failure(
      downloadRecording(fresh(`${rec.origin}/c.wav`), memorySink().stream),
    );
    expect(insecure).toMatchObject({ reason: "insecure-url" });
    expect((insecure as Error).message).toMatch(
      /is http, not https .* Pass allowHttp: true for a local sandbox\./,
    );
    const notUrl = await failure(
      downloadRecording(fresh("/relative/c.wav"), memorySink().stream, HTTP),
    );
    expect(notUrl).toMatchObject({ reason: "insecure-url" });
    const none = await failure(
      downloadRecording({ recordingUrl: null }, memorySink().stream, HTTP),
    );
    expect(none).toMatchObject({ reason: "no-recording-url" });
    expect(rec.seen).toEqual([]);
  });

  it("says which host refused and its S3 code, never the URL's signature", async () => {
    const signature = "cab675aec80b0d2544232ee3b1c272217c49e2c0";
    const rec = await host((res) =>
      res
        .writeHead(403, { "content-type": "application/xml" })
        .end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>Signature ${signature} does not match</Message></Error>`,
        ),
    );
    const url = `${rec.origin}/c.wav?X-Amz-Signature=${signature}`;
    const error = await failure(downloadRecording(fresh(url), memorySink().stream, HTTP));
    expect(error).toMatchObject({ reason: "http-status", status: 403 });
    expect((error as Error).message).toBe(
      `The recording host ${new URL(rec.origin).host} answered 403: SignatureDoesNotMatch (Signature [token] does not match).`,
    );
    expect(JSON.stringify(error)).not.toContain(signature);
  });

  it("an unreachable host is a 'network' RecordingError naming it", async () => {
    const rec = await host((res) => sendAudio(res));
    await closeServers();
    const error = await failure(
      downloadRecording(fresh(`${rec.origin}/c.wav`), memorySink().stream, HTTP),
    );
    expect(error).toMatchObject({ reason: "network" });
    expect((error as Error).message).toBe(
      `Could not reach the recording host ${new URL(rec.origin).host} (ECONNREFUSED).`,
    );
  });
});

describe("an expired URL without API credentials", () => {
  it("expired by the URL's own parameters: fails before any request, saying what is needed", async () => {
    const rec = await host((res) => sendAudio(res));
    const url = `${rec.origin}/c.wav?X-Amz-Date=20190813T124618Z&X-Amz-Expires=3600&X-Amz-Signature=s`;
    const sink = memorySink();
    const error = await failure(downloadRecording(fresh(url), sink.stream, HTTP));
    expect(error).toMatchObject({ reason: "expired" });
    expect((error as Error).message).toBe(
      "The recording URL expired at 2019-08-13T13:46:18.000Z (the provider's recording URLs work for 2 hours). A fresh one comes from the provider's Recordings API, which needs the account's API credentials: pass { client: createClient({ baseUrl, token }) } (token: the account's API access token, REPORTKIT_API_TOKEN) in downloadRecording's options.",
    );
    expect(rec.seen).toEqual([]);
    expect(sink.state.aborted).toBe(error);
  });

  it("by the report's time (2 hours after its end), or its recordingExpiresAt", async () => {
    const rec = await host((res) => sendAudio(res));
    const url = `${rec.origin}/c.wav`;
    const ended = { recordingUrl: url, endedAt: new Date(Date.now() - 2 * 3_600_000 - 1000) };
    await expect(downloadRecording(ended, memorySink().stream, HTTP)).rejects.toMatchObject({
      reason: "expired",
    });
    const told = { recordingUrl: url, recordingExpiresAt: new Date(Date.now() - 1).toISOString() };
    await expect(downloadRecording(told, memorySink().stream, HTTP)).rejects.toMatchObject({
      reason: "expired",
    });
    expect(rec.seen).toEqual([]);
  });

  it("refused as expired by the host (S3's 403 'Request has expired', or a 410)", async () => {
    const rec = await host((res, n) =>
      n === 0
        ? res
            .writeHead(403, { "content-type": "application/xml" })
            .end("<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>")
        : res.writeHead(410).end(),
    );
    for (const _ of [1, 2]) {
      const error = await failure(
        downloadRecording(fresh(`${rec.origin}/c.wav`), memorySink().stream, HTTP),
      );
      expect(error).toMatchObject({ reason: "expired" });
      expect((error as Error).message).toMatch(
        /^The recording URL was refused as expired: The recording host .* answered (403: AccessDenied \(Request has expired\)|410)\. A fresh one comes from/,
      );
    }
  });
});

describe("bounded in size and time, into the sink", () => {
  it("a declared size over maxBytes is refused before reading; the sink aborted, never written", async () => {
    const rec = await host((res) => sendAudio(res, Buffer.alloc(2000)));
    const sink = memorySink();
    const error = await failure(
      downloadRecording(fresh(`${rec.origin}/c.wav`), sink.stream, { ...HTTP, maxBytes: 1000 }),
    );
    expect(error).toMatchObject({ reason: "too-large" });
    expect((error as Error).message).toBe(
      "The recording is larger than maxBytes, 1000 bytes (the host declared 2000 bytes): stopped, the sink aborted, nothing stored as complete. Raise maxBytes in downloadRecording's options if recordings this large are expected.",
    );
    expect(sink.state).toMatchObject({ written: 0, closed: false, aborted: error });
  });

  it("an undeclared one stops at the bound: less than it written, the sink aborted, not closed", async () => {
    let finished = false;
    const rec = await host((res) => {
      res.writeHead(200, { "content-type": "audio/wav" });
      let sent = 0;
      const more = () => {
        while (sent < 4_000_000) {
          sent += 16_384;
          if (!res.write(Buffer.alloc(16_384))) {
            res.once("drain", more);
            return;
          }
        }
        res.end(() => {
          finished = true;
        });
      };
      more();
    });
    const sink = memorySink();
    const error = await failure(
      downloadRecording(fresh(`${rec.origin}/c.wav`), sink.stream, { ...HTTP, maxBytes: 100_000 }),
    );
    expect(error).toMatchObject({ reason: "too-large" });
    expect(sink.state.written).toBeLessThanOrEqual(100_000);
    expect(sink.state).toMatchObject({ closed: false, aborted: error });
    expect(finished).toBe(false);
  });

  it("a host that stalls is stopped at timeoutMs: 'timed-out', the sink aborted", async () => {
    const rec = await host((res) => {
      res.writeHead(200, { "content-type": "audio/wav", "content-length": "1000" });
      res.write(Buffer.alloc(10));
    });
    const sink = memorySink();
    const error = await failure(
      downloadRecording(fresh(`${rec.origin}/c.wav`), sink.stream, { ...HTTP, timeoutMs: 200 }),
    );
    expect(error).toMatchObject({ reason: "timed-out" });
    expect((error as Error).message).toMatch(/did not finish within timeoutMs \(200 ms\)/);
    expect(sink.state.closed).toBe(false);
    expect(sink.state.aborted).toBeDefined();
  });

  it("the caller's signal stops it with its own reason", async () => {
    const rec = await host((res) => res.writeHead(200).write(Buffer.alloc(10)));
    const controller = new AbortController();
    const done = downloadRecording(fresh(`${rec.origin}/c.wav`), memorySink().stream, {
      ...HTTP,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("shutting down")), 50);
    await expect(done).rejects.toThrow("shutting down");
  });
});

describe("a function sink (an S3 upload)", () => {
  it("is handed the stream and what the host said of it, and must read it to the end", async () => {
    const rec = await host((res) => sendAudio(res));
    let seen: unknown;
    const done = await downloadRecording(
      fresh(`${rec.origin}/c.wav`),
      async (stream, info) => {
        seen = { info, bytes: Buffer.from(await new Response(stream).arrayBuffer()) };
      },
      HTTP,
    );
    expect(seen).toEqual({
      info: { contentType: "audio/wav", contentLength: AUDIO.length },
      bytes: AUDIO,
    });
    expect(done.bytes).toBe(AUDIO.length);
    const early = await failure(
      downloadRecording(fresh(`${rec.origin}/c.wav`), async () => {}, HTTP),
    );
    expect(early).toMatchObject({ reason: "sink" });
    expect((early as Error).message).toMatch(
      /resolved before it had read the recording to its end/,
    );
  });

  it("its failure is a 'sink' RecordingError with it as the cause; over the bound, 'too-large'", async () => {
    const rec = await host((res) => sendAudio(res, Buffer.alloc(5000)));
    const broken = new Error("S3 said no");
    const failed = await failure(
      downloadRecording(
        fresh(`${rec.origin}/c.wav`),
        async (stream) => {
          await stream.cancel();
          throw broken;
        },
        HTTP,
      ),
    );
    expect(failed).toMatchObject({ reason: "sink", cause: broken });
    expect((failed as Error).message).toBe(
      "The sink failed while storing the recording: S3 said no",
    );
    let uploaded = 0;
    const tooLarge = await failure(
      downloadRecording(
        fresh(`${rec.origin}/c.wav`),
        async (stream) => {
          const reader = stream.getReader();
          for (let step = await reader.read(); !step.done; step = await reader.read()) {
            uploaded += step.value.byteLength;
          }
        },
        { ...HTTP, maxBytes: 4000 },
      ),
    );
    expect(tooLarge).toMatchObject({ reason: "too-large" });
    expect(uploaded).toBe(0);
  });
});

describe("its arguments", () => {
  it("says what is wrong before anything is sent", async () => {
    const call = fresh("https://h.example/c.wav");
    await expect(downloadRecording(call, {} as never)).rejects.toThrow(
      "reportkit client: downloadRecording's sink must be a WritableStream (e.g. Writable.toWeb(fs.createWriteStream(path))) or a function that consumes a ReadableStream.",
    );
    await expect(downloadRecording(call, memorySink().stream, { maxBytes: 0 })).rejects.toThrow(
      "`maxBytes` must be a whole number from 1",
    );
    await expect(downloadRecording(null as never, memorySink().stream)).rejects.toThrow(
      "downloadRecording needs a call report",
    );
  });
});
