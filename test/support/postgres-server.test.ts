import { existsSync } from "node:fs";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { requirePostgresServer, startPostgresServer } from "./postgres-server.js";

describe.runIf(requirePostgresServer("postgres-server.test.ts"))(
  "the test PostgreSQL server",
  () => {
    it("answers, stops, keeps a committed row across a restart, and removes its directory", async () => {
      const server = await startPostgresServer();
      try {
        const client = new pg.Client({ connectionString: server.url });
        await client.connect();
        await client.query("CREATE TABLE t (v text)");
        await client.query("INSERT INTO t VALUES ('kept')");
        await client.end();
        await server.stop();
        const refused = new pg.Client({ connectionString: server.url });
        await expect(refused.connect()).rejects.toThrow(/ECONNREFUSED/);
        await server.start();
        const again = new pg.Client({ connectionString: server.url });
        await again.connect();
        const { rows } = await again.query("SELECT v FROM t");
        await again.end();
        expect(rows).toEqual([{ v: "kept" }]);
      } finally {
        await server.close();
      }
      expect(existsSync(server.dir)).toBe(false);
    });
  },
);
