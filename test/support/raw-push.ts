// Pushing a request over a raw socket as fast as the server takes it, to see how much of a
// refused or oversized body a server reads before it closes the connection.
import net from "node:net";

export const BIG = 256 * 1024 * 1024; // declared: far more than any cap
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

export interface Pushed {
  /** The status line and headers of the reply, lower-cased names. */
  status: number;
  headers: Record<string, string>;
  /** Body bytes the client had written when the server closed the connection. */
  written: number;
  closedByServer: boolean;
}

/**
 * Sends `head` (request line and headers), then body bytes as fast as the socket takes them,
 * up to `max`, until the server closes the connection; resolves with the reply and how much
 * was written. `stall`: send `head` plus one byte, then nothing.
 */
export function push(port: number, head: string, max: number, stall = false): Promise<Pushed> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    let written = 0;
    let closed = false;
    const finish = () => {
      if (closed) return;
      closed = true;
      const [statusLine = "", ...lines] = received.split("\r\n\r\n")[0]?.split("\r\n") ?? [];
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(statusLine.split(" ")[1]),
        headers,
        written,
        closedByServer: written < max || stall,
      });
    };
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
    });
    socket.on("close", finish);
    socket.on("error", () => {}); // EPIPE / ECONNRESET once the server closed: expected
    socket.write(head);
    if (stall) {
      socket.write("{");
      return;
    }
    const pump = () => {
      while (!closed && !socket.destroyed && written < max) {
        written += CHUNK.length;
        if (!socket.write(CHUNK)) {
          socket.once("drain", pump);
          return;
        }
      }
      if (written >= max) socket.end();
    };
    pump();
  });
}

export const head = (headers: string) =>
  `POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n${headers}\r\n`;
