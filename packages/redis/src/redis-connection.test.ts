// The one way to Redis, against a real redis-server (and, for a connection that never gets
// ready, a TCP server that accepts and stays silent): the option's shapes, who owns the client,
// the bounded wait, and messages that name the address and never a password.
import { createServer, type Server, type Socket } from "node:net";
import { StoreError } from "@reportkit/core/adapter";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type RedisServer,
  requireRedisServer,
  startRedisServer,
} from "../../../test/support/redis-server.js";
import { checkConnection, describeRedis, FAIL_FAST, type RedisHandle } from "./redis-connection.js";

/** The message a call throws (or "" when it does not). */
function refusal(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    return (error as Error).message;
  }
  return "";
}

describe("checkConnection: the option's shapes", () => {
  it("knows a cluster before any client is made", () => {
    expect(checkConnection({ cluster: ["redis://10.0.0.1:7000"] }, "x").isCluster).toBe(true);
    expect(checkConnection("redis://10.0.0.1:6379", "x").isCluster).toBe(false);
    expect(checkConnection({ host: "10.0.0.1", port: 6379 }, "x").isCluster).toBe(false);
  });

  it.each([
    [undefined, 'someStore: give `connection`, where Redis is: e.g. "redis://127.0.0.1:6379"'],
    ["localhost:6379", 'must be a redis:// or rediss:// (TLS) URL, got the scheme "localhost".'],
    ["127.0.0.1:6379", "`connection` is not a URL; give it with its scheme"],
    [6379, "`connection` must be where Redis is, e.g."],
    [["redis://h"], "; got a list."],
    [
      { url: "redis://h" },
      '`connection.url` is no ioredis option: give the URL itself, `connection: "redis://…"`.',
    ],
    [{ cluster: [] }, "`connection.cluster` must be a non-empty list"],
  ])("refuses %j, naming the factory and the fix", (connection, message) => {
    const text = refusal(() => checkConnection(connection, "someStore"));
    expect(text.startsWith("someStore: ")).toBe(true);
    expect(text).toContain(message);
  });

  it("never shows a URL it refuses (it may hold a password)", () => {
    const text = refusal(() => checkConnection("http://app:s3cret@h:6379", "someStore"));
    expect(text).toContain('got the scheme "http"');
    expect(text).not.toContain("s3cret");
  });
});

describe.runIf(requireRedisServer("redis-connection.test.ts"))("a Redis handle", () => {
  let redis: RedisServer;
  let silent: Server;
  let silentPort: number;
  const silentSockets = new Set<Socket>();
  const handles: RedisHandle[] = [];
  const open = (connection: unknown, settings = FAIL_FAST) => {
    const handle = checkConnection(connection, "someStore").open(settings);
    handles.push(handle);
    return handle;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    // Accepts and never answers: ioredis connects, and its ready check waits for a reply.
    silent = createServer((socket) => {
      silentSockets.add(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const handle of handles) handle.client.disconnect();
    for (const socket of silentSockets) socket.destroy();
    await new Promise((resolve) => silent?.close(resolve));
    await redis?.close();
  });

  it("opens a URL, ioredis options or a cluster's nodes itself, and says where by address only", async () => {
    const fromUrl = open(redis.url.replace("redis://", "redis://app:s3cret@"));
    expect(fromUrl.owned).toBe(true);
    expect(fromUrl.where()).toBe(`Redis at redis://127.0.0.1:${redis.port}`);
    const fromOptions = open({ host: "127.0.0.1", port: redis.port });
    expect(fromOptions.where()).toBe(`Redis at redis://127.0.0.1:${redis.port}`);
    await fromOptions.ready("ping", 10_000);
    expect(await fromOptions.client.ping()).toBe("PONG");
    await fromOptions.close(1000);
    await expect.poll(() => fromOptions.client.status, { timeout: 10_000 }).toBe("end");
    expect(open("rediss://:s3cret@127.0.0.1:9").where()).toBe("Redis at rediss://127.0.0.1:9");
    expect(open({ path: "/tmp/no-such-redis.sock" }).where()).toBe(
      "Redis at /tmp/no-such-redis.sock",
    );
    expect(
      open({ cluster: ["redis://:s3cret@127.0.0.1:9", "redis://:s3cret@127.0.0.1:19"] }).where(),
    ).toBe("Redis Cluster at redis://127.0.0.1:9,127.0.0.1:19");
  });

  it("borrows a client of the user's: used as it is, never closed", async () => {
    const own = new Redis(redis.url, { lazyConnect: true });
    await own.connect();
    const handle = checkConnection(own, "someStore").open(FAIL_FAST);
    expect(handle.owned).toBe(false);
    expect(handle.client).toBe(own);
    expect(handle.where()).toBe(describeRedis(own));
    expect(await handle.call("ping", 1000, () => own.ping())).toBe("PONG");
    await handle.close(1000);
    expect(own.status).toBe("ready");
    own.disconnect();
  });

  it("waits for a connection under way, one wait however many callers", async () => {
    const handle = open(redis.url);
    expect(handle.client.status).toBe("connecting");
    const before = handle.client.listenerCount("ready");
    const waits = Array.from({ length: 50 }, () => handle.ready("claim", 10_000));
    expect(handle.client.listenerCount("ready")).toBe(before + 1);
    await Promise.all(waits);
    expect(handle.client.status).toBe("ready");
    expect(handle.client.listenerCount("ready")).toBe(before);
  });

  it("rejects, naming the address and never the password, when the connection is refused", async () => {
    const handle = open("redis://app:s3cret@127.0.0.1:9");
    const error = await handle.ready("claim", 10_000).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toBe(
      "someStore: claim failed on Redis at redis://127.0.0.1:9 (connect ECONNREFUSED 127.0.0.1:9).",
    );
  });

  it("gives up on a connection that never gets ready after its bound, saying so", async () => {
    const handle = open(`redis://127.0.0.1:${silentPort}`);
    await expect(handle.ready("claim", 200)).rejects.toThrow(
      `someStore: claim failed on Redis at redis://127.0.0.1:${silentPort} (no connection within 200 ms).`,
    );
  });

  it("does not wait for a reconnection: a lost connection rejects at once, and works again once back", async () => {
    const handle = open(redis.url);
    await handle.ready("ping", 10_000);
    await redis.stop();
    try {
      await expect
        .poll(() => handle.client.status, { timeout: 10_000, interval: 20 })
        .not.toBe("ready");
      const error = await handle.ready("claim", 60_000).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((error as Error).message).toMatch(
        new RegExp(
          `^someStore: claim failed on Redis at redis://127\\.0\\.0\\.1:${redis.port} \\(`,
        ),
      );
    } finally {
      await redis.start();
    }
    await expect
      .poll(() => handle.call("ping", 1000, () => handle.client.ping()).catch(() => "down"), {
        timeout: 15_000,
        interval: 100,
      })
      .toBe("PONG");
  });

  it("bounds a call: a command with no reply within timeoutMs fails, saying so", async () => {
    const handle = open(redis.url);
    // BLPOP with no timeout on an empty list: Redis holds the reply back for good.
    await expect(
      handle.call("claim", 200, () => handle.client.blpop(`empty:${Date.now()}`, 0)),
    ).rejects.toThrow(
      `someStore: claim failed on Redis at redis://127.0.0.1:${redis.port} (no reply within 200 ms (timeoutMs)).`,
    );
  });
});
