import { redisJournal } from "@reportkit/redis";
import { describe } from "vitest";
import { requireRedisServer, startRedisServer } from "../support/redis-server.js";
import { runReplayCases } from "./replay-cases.js";

describe.runIf(requireRedisServer("redis-replay.test.ts"))("Redis", () => {
  runReplayCases("Redis", async () => {
    // Append-only: what the journal kept is still there after the server is stopped and started.
    const server = await startRedisServer({ appendOnly: true });
    const journal = redisJournal({ connection: server.url });
    return {
      url: server.url,
      journal,
      stop: () => server.stop(),
      start: () => server.start(),
      async close() {
        await journal.close();
        await server.close();
      },
    };
  });
});
