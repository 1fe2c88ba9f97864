// The example as its users run it, against a real Postgres, curled: the DLR is recorded once
// in `messages` however often it is sent; a late ENROUTE leaves the message DELIVRD; a wrong
// token is refused; health says Postgres is up.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_DLR_TEXT, TOKEN } from "../../test/fixtures/samples.js";
import { curl, type RunningExample, startExample } from "../../test/support/example-process.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../../test/support/postgres-server.js";

describe.runIf(requirePostgresServer("examples/postgres"))("examples/postgres", () => {
  let server: PostgresServer;
  let example: RunningExample;

  beforeAll(async () => {
    server = await startPostgresServer();
    example = await startExample(new URL(".", import.meta.url), "server.ts", {
      REPORTKIT_SECRET: TOKEN,
      DATABASE_URL: server.url,
    });
  });
  afterAll(async () => {
    await example?.stop();
    await server?.close();
  });

  const postDlr = (token: string, body = SAMPLE_DLR_TEXT) =>
    curl(
      "-X",
      "POST",
      `${example.origin}/webhooks`,
      "-H",
      `Authorization: Bearer ${token}`,
      "-H",
      "Content-Type: application/json",
      "--data-binary",
      body,
    );

  it("records the documented DLR once in messages, however often it is sent", async () => {
    expect(await postDlr(TOKEN)).toEqual({ status: 200, body: '{"ok":true}' });
    expect(await postDlr(TOKEN)).toEqual({ status: 200, body: '{"ok":true,"duplicate":true}' });
    const message = await curl(`${example.origin}/messages/b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1`);
    expect(message.status).toBe(200);
    expect(JSON.parse(message.body)).toEqual({
      id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
      mobile: "919876543210",
      status: "DELIVRD",
      outcome: "delivered",
      final: true,
      delivered_at: "2021-04-09T10:57:51.000Z",
      reports: 1,
      history: ["DELIVRD"],
    });
    expect(example.output()).toContain(
      "delivery b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1: DELIVRD recorded (delivered)",
    );
  });

  it("keeps the message DELIVRD when the provider's retry of an older ENROUTE comes after it", async () => {
    const enroute = SAMPLE_DLR_TEXT.replace('"DELIVRD"', '"ENROUTE"');
    expect(enroute).toContain('"ENROUTE"');
    expect(await postDlr(TOKEN, enroute)).toEqual({ status: 200, body: '{"ok":true}' });
    const message = await curl(`${example.origin}/messages/b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1`);
    expect(JSON.parse(message.body)).toMatchObject({
      status: "DELIVRD",
      outcome: "delivered",
      final: true,
      delivered_at: "2021-04-09T10:57:51.000Z",
      reports: 2,
      history: ["DELIVRD", "ENROUTE"],
    });
    expect(example.output()).toContain(
      "delivery b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1: ENROUTE kept in the history; the message stays DELIVRD",
    );
  });

  it("refuses a wrong token and reports Postgres healthy", async () => {
    expect((await postDlr("wrong")).status).toBe(401);
    const health = await curl(`${example.origin}/health`);
    expect(health).toEqual({
      status: 200,
      body: '{"ok":true,"checks":{"dedupe":{"ok":true},"journal":{"ok":true}}}',
    });
  });
});
