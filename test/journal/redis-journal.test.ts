import { redisDedupe, redisJournal } from "@reportkit/redis";
import { describe } from "vitest";
import { requireRedisServer, startRedisServer } from "../support/redis-server.js";
import { type JournalSetup, runJournalCases } from "./journal-cases.js";
import { runKindCases } from "./kinds-cases.js";

describe.runIf(requireRedisServer("redis-journal.test.ts"))("Redis", () => {
  const open = async (): Promise<JournalSetup> => {
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
  };
  runJournalCases("Redis", open);
  runKindCases("Redis", open);
});
