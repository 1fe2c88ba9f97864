import { randomBytes } from "node:crypto";
import type http from "node:http";
import { Readable } from "node:stream";
import type { PresignedUrls } from "./presigned-url.js";
import { recordingChunks } from "./recording-audio.js";
import type { VoiceLog } from "./voice-log.js";

// The sandbox's recording host: GET (or HEAD) a recording's presigned URL, answered as S3
// answers one: the file (audio/wav, with its Content-Length, streamed), or S3's XML error:
// 403 AccessDenied "Request has expired" once the URL's time is up (on the sandbox's clock),
// 403 SignatureDoesNotMatch for a query that does not sign the path, 404 NoSuchKey for a file
// it does not have (or no longer: after 60 days). No bearer: the URL is the credential. Every
// request is remembered, headers and all, for tests to see what a downloader sent.

/** A request the recording host received. */
export interface RecordingRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  status: number;
}

/** How many requests are remembered (the oldest forgotten first). */
const MAX_REMEMBERED = 1_000;

export class RecordingFiles {
  readonly requests: RecordingRequest[] = [];

  constructor(
    private readonly voice: VoiceLog,
    private readonly urls: PresignedUrls,
    private readonly now: () => number,
  ) {}

  serve(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
    const method = (req.method ?? "GET").toUpperCase();
    const status = this.answer(method, url, res);
    this.requests.push({ method, path: url.pathname, headers: req.headers, status });
    if (this.requests.length > MAX_REMEMBERED) this.requests.shift();
  }

  private answer(method: string, url: URL, res: http.ServerResponse): number {
    if (method !== "GET" && method !== "HEAD") {
      return s3Error(
        res,
        405,
        "MethodNotAllowed",
        "The specified method is not allowed against this resource.",
      );
    }
    const recording = this.voice.recordingAt(url.pathname);
    if (recording === undefined) {
      return s3Error(res, 404, "NoSuchKey", "The specified key does not exist.");
    }
    const verdict = this.urls.check(url.pathname, url.searchParams, this.now());
    if (!verdict.ok && verdict.why === "expired") {
      return s3Error(res, 403, "AccessDenied", "Request has expired", {
        "X-Amz-Expires": String(verdict.lifetimeSeconds),
        Expires: new Date(verdict.expiresAt).toISOString().replace(/\.\d{3}Z$/, "Z"),
        ServerTime: new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, "Z"),
      });
    }
    if (!verdict.ok) {
      return s3Error(
        res,
        403,
        verdict.why === "unsigned" ? "AccessDenied" : "SignatureDoesNotMatch",
        verdict.why === "unsigned"
          ? "Access Denied"
          : "The request signature we calculated does not match the signature you provided.",
      );
    }
    res.writeHead(200, {
      "content-type": "audio/wav",
      "content-length": String(recording.size),
      "last-modified": new Date(recording.createdAt).toUTCString(),
      etag: `"${recording.id}"`,
      "accept-ranges": "none",
    });
    if (method === "HEAD") {
      res.end();
      return 200;
    }
    // Made as the socket takes it: a large recording is never whole in memory.
    const body = Readable.from(recordingChunks(recording.size), { objectMode: false });
    body.pipe(res);
    res.once("close", () => body.destroy());
    return 200;
  }
}

/** S3's error answer: XML with its Code and Message, and a request id. */
function s3Error(
  res: http.ServerResponse,
  status: number,
  code: string,
  message: string,
  extra: Record<string, string> = {},
): number {
  const fields = Object.entries(extra)
    .map(([name, value]) => `<${name}>${value}</${name}>`)
    .join("");
  const requestId = randomBytes(8).toString("hex").toUpperCase();
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>${fields}<RequestId>${requestId}</RequestId><HostId>${randomBytes(24).toString("base64")}</HostId></Error>`;
  res.writeHead(status, {
    "content-type": "application/xml",
    "content-length": String(Buffer.byteLength(body)),
  });
  res.end(body);
  return status;
}
