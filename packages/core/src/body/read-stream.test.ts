import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { BodyHeaders, NodeStyleStream } from "../receiver/types.js";
import type { ReportkitError } from "../reply/errors.js";
import { readNodeStream } from "./read-stream.js";

const JSON_TYPE = "application/json";

/** What readNodeStream hands to `done`, and how often it called it. */
function read(stream: NodeStyleStream, headers: BodyHeaders, limit = 1024) {
  return new Promise<{ error: ReportkitError | null; body?: string | Uint8Array; calls: number }>(
    (resolve) => {
      let calls = 0;
      readNodeStream(stream, headers, limit, (error, body) => {
        calls += 1;
        // Later calls would show in `calls`: the result is read a little after the first.
        setTimeout(() => resolve({ error, body, calls }), 20);
      });
    },
  );
}

const bytesOf = (...pieces: (string | Buffer)[]) =>
  Readable.from(pieces.map((p) => (typeof p === "string" ? Buffer.from(p) : p)));

describe("readNodeStream: a Node-style stream read whole, with a server's checks", () => {
  it("UTF-8 text comes decoded, also with a character split across chunks", async () => {
    const bytes = Buffer.from('{"custom":"café €5"}');
    const at = bytes.indexOf(Buffer.from("€")) + 1;
    const stream = bytesOf(bytes.subarray(0, at), bytes.subarray(at));
    const result = await read(stream, { "content-type": JSON_TYPE });
    expect(result).toEqual({ error: null, body: '{"custom":"café €5"}', calls: 1 });
  });

  it("a body core decodes itself (another charset, multipart) comes as bytes", async () => {
    const latin1 = Buffer.from("custom=caf\u00e9", "latin1");
    const form = "application/x-www-form-urlencoded; charset=iso-8859-1";
    const result = await read(bytesOf(latin1), { "content-type": form });
    expect(result.body).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(result.body as Uint8Array).equals(latin1)).toBe(true);
  });

  it("a stream of strings (one with an encoding set) is read as its UTF-8 bytes", async () => {
    const stream = new PassThrough();
    stream.setEncoding("utf8");
    stream.end(Buffer.from("été"));
    const headers = { "content-type": JSON_TYPE, "content-length": "5" };
    expect(await read(stream, headers)).toEqual({ error: null, body: "été", calls: 1 });
  });

  it("a declared length over the limit is refused before a byte is read", async () => {
    const stream = bytesOf("x".repeat(10));
    const result = await read(stream, { "content-length": "2000" });
    expect(result.error?.code).toBe("payload_too_large");
    expect(stream.readableFlowing).toBe(null); // never started
  });

  it("without a declared length, the bytes are counted as they arrive: refused once over", async () => {
    const stream = new PassThrough();
    const reading = read(stream, {}, 10);
    stream.write("123456");
    stream.write("7890ab"); // 12 bytes: over, and the body has not ended
    stream.end("more"); // the rest drains, ignored
    const result = await reading;
    expect(result).toMatchObject({ calls: 1, error: { code: "payload_too_large" } });
  });

  it("a decoding stream is held to the limit by the bytes it took in", async () => {
    const stream = Object.assign(bytesOf("{}"), { receivedEncodedLength: 5000 });
    expect((await read(stream, {})).error?.code).toBe("payload_too_large");
  });

  it("a body shorter (or longer) than its Content-Length is refused, saying by how much", async () => {
    const short = await read(bytesOf('{"id":1}'), { "content-length": "20" });
    expect(short.error).toMatchObject({
      code: "body_read_failed",
      cause: { message: "8 bytes arrived of the 20 declared" },
    });
    const long = await read(bytesOf('{"id":1}'), { "content-length": "3" });
    expect(long.error?.code).toBe("body_read_failed");
  });

  it("a decoding stream's length is what it took in, held against the declared one", async () => {
    const stream = Object.assign(bytesOf('{"id":1}'), { receivedEncodedLength: 30 });
    const headers = { "content-type": JSON_TYPE, "content-length": "30" };
    expect(await read(stream, headers)).toEqual({ error: null, body: '{"id":1}', calls: 1 });
  });

  it("a stream that fails mid-way is body_read_failed, once, with the failure as cause", async () => {
    const stream = new PassThrough();
    const reading = read(stream, { "content-type": JSON_TYPE });
    stream.write('{"id":');
    const reset = new Error("connection reset mid-body");
    stream.destroy(reset);
    const result = await reading;
    expect(result).toMatchObject({ calls: 1, error: { code: "body_read_failed", cause: reset } });
  });

  it("an empty body is empty text", async () => {
    const result = await read(bytesOf(), { "content-type": JSON_TYPE, "content-length": "0" });
    expect(result).toEqual({ error: null, body: "", calls: 1 });
  });
});
