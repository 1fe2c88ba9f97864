import { createConnection } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { requireRedisServer, startRedisServer } from "./redis-server.js";

function command(port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    let reply = "";
    socket.once("error", reject);
    socket.on("data", (c) => {
      reply += c.toString();
      if (reply.endsWith("\r\n")) socket.end();
    });
    socket.once("close", () => resolve(reply));
    socket.once("connect", () => socket.write(`${line}\r\n`));
  });
}

describe.runIf(requireRedisServer("redis-server.test.ts"))("the test redis-server", () => {
  const servers: { close(): Promise<void> }[] = [];
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it("answers, stops, and keeps an append-only write across a restart", async () => {
    const redis = await startRedisServer({ appendOnly: true });
    servers.push(redis);
    expect(await command(redis.port, "SET k v")).toBe("+OK\r\n");
    await redis.stop();
    await expect(command(redis.port, "PING")).rejects.toThrow(/ECONNREFUSED/);
    await redis.start();
    expect(await command(redis.port, "GET k")).toBe("$1\r\nv\r\n");
  });
});
