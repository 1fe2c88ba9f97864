import { postgresInboxSql, postgresJournal } from "@reportkit/postgres";
import pg from "pg";
import { describe } from "vitest";
import { requirePostgresServer, startPostgresServer } from "../support/postgres-server.js";
import { runReplayCases } from "./replay-cases.js";

describe.runIf(requirePostgresServer("postgres-replay.test.ts"))("Postgres", () => {
  runReplayCases("Postgres", async () => {
    const server = await startPostgresServer();
    // The journal's reader never creates its table (a read-only role may list it): the
    // tables are there first, as an inbox's first claim or a migration would leave them.
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(postgresInboxSql());
    await admin.end();
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
