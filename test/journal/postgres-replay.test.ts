import { postgresJournal } from "@reportkit/postgres";
import { describe } from "vitest";
import { requirePostgresServer, startPostgresServer } from "../support/postgres-server.js";
import { runReplayCases } from "./replay-cases.js";

describe.runIf(requirePostgresServer("postgres-replay.test.ts"))("Postgres", () => {
  runReplayCases("Postgres", async () => {
    const server = await startPostgresServer();
    const journal = postgresJournal({ connectionString: server.url });
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
