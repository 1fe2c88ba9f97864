import { postgresInbox, postgresJournal } from "@reportkit/postgres";
import { describe } from "vitest";
import { requirePostgresServer, startPostgresServer } from "../support/postgres-server.js";
import { type JournalSetup, runJournalCases } from "./journal-cases.js";
import { runKindCases } from "./kinds-cases.js";

describe.runIf(requirePostgresServer("postgres-journal.test.ts"))("Postgres", () => {
  const open = async (): Promise<JournalSetup> => {
    const server = await startPostgresServer();
    const stores: { close(): Promise<void> }[] = [];
    const reader = postgresJournal({ connectionString: server.url });
    return {
      url: server.url,
      store() {
        const inbox = postgresInbox({ connectionString: server.url });
        stores.push(inbox);
        return inbox;
      },
      entries: () => reader.list(),
      async close() {
        await Promise.all(stores.map((s) => s.close()));
        await reader.close();
        await server.close();
      },
    };
  };
  runJournalCases("Postgres", open);
  runKindCases("Postgres", open);
});
