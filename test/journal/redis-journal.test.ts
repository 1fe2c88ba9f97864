import { redisDedupe, redisJournal } from "@reportkit/redis";
import { describe } from "vitest";
import { requireRedisServer, startRedisServer } from "../support/redis-server.js";
import { runJournalCases } from "./journal-cases.js";

describe.runIf(requireRedisServer("redis-journal.test.ts"))("Redis", () => {
  runJournalCases("Redis", async () => {
    const server = await startRedisServer();
    const stores: { close(): Promise<void> }[] = [];
    const reader = redisJournal({ connection: server.url });
    return {
      url: server.url,
      store() {
        const store = redisDedupe({ connection: server.url });
        stores.push(store);
        return store;
      },
      entries: () => reader.list(),
      async close() {
        await Promise.all(stores.map((s) => s.close()));
        await reader.close();
        await server.close();
      },
    };
  });
});
