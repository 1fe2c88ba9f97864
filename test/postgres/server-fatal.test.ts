// A server that ends a session the moment it is ready (what Postgres does to every session when
// it shuts down or restarts: FATAL 57P01 "terminating connection due to administrator
// command") must not end the receiver's process. A fake server of the test's own sends
// AuthenticationOk, ReadyForQuery and that FATAL in one write: the error arrives while the pool
// hands the new connection out, before any code of the store's could await. The receiver
// answers 503, and the process goes on to its end.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** One backend message: its type byte, its length (itself included) and its payload. */
function message(type: string, payload: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(payload.length + 4);
  return Buffer.concat([Buffer.from(type), length, payload]);
}

function int32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
}

/** AuthenticationOk, ReadyForQuery (idle) and ErrorResponse FATAL 57P01, in one buffer. */
const READY_THEN_FATAL = Buffer.concat([
  message("R", int32(0)),
  message("Z", Buffer.from("I")),
  message(
    "E",
    Buffer.from("SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0"),
  ),
]);

describe("a session ended by the server as soon as it is ready", () => {
  let server: Server;
  let port = 0;
  let sessions = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      sessions++;
      socket.on("error", () => {});
      // The client's startup message first, then everything in one write, then the end.
      socket.once("data", () => {
        socket.write(READY_THEN_FATAL);
        socket.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    port = typeof address === "object" && address !== null ? address.port : 0;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("is a 503 for the report, not the end of the process", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--conditions=source", "one-report-process.ts"],
      {
        cwd: fileURLToPath(new URL(".", import.meta.url)),
        env: { ...process.env, DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres` },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exit = await new Promise<number | string | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`the process did not end within 30 s:\n${output}`));
      }, 30_000);
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        resolve(code ?? signal);
      });
    });
    expect(sessions).toBeGreaterThan(0);
    expect({ exit, output }).toEqual({ exit: 0, output: "reply 503 dedupe_unavailable\ndone\n" });
  });
});
