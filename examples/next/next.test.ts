// examples/next as its users run it: `next build` (without the token), then `next start` with
// REPORTKIT_SECRET; both documented samples over HTTP, on the Node.js and the Edge route.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { SAMPLE_CALL_TEXT, SAMPLE_DLR_TEXT, TOKEN } from "../../test/fixtures/samples.js";
import { buildAndStartNext, type RunningNextApp } from "../../test/support/next-app.js";

let app: RunningNextApp;

beforeAll(async () => {
  app = await buildAndStartNext(fileURLToPath(new URL(".", import.meta.url)), {
    REPORTKIT_SECRET: TOKEN,
  });
  console.log(`examples/next: next build took ${app.buildSeconds} s`);
}, 600_000);

afterAll(() => app?.stop());

const push = (path: string, body: string, token = TOKEN) =>
  fetch(`${app.origin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body,
  });

it("receives both documented sample reports on the Node.js route and logs them typed", async () => {
  expect((await push("/webhooks", SAMPLE_DLR_TEXT)).status).toBe(200);
  expect((await push("/webhooks", SAMPLE_CALL_TEXT)).status).toBe(200);
  await vi.waitFor(
    () => {
      expect(app.output()).toContain(
        "delivery b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1 to 919876543210: DELIVRD at 2021-04-09T10:57:51.000Z",
      );
      expect(app.output()).toContain(
        "call 5f2b1a9c-3d4e-4f60-8a7b-9c0d1e2f3a4b 918068281235 -> 919876543210: ANSWER, 23s",
      );
    },
    { timeout: 10_000 },
  );
});

it("receives a DLR on the Edge route, the token read there too", async () => {
  const reply = await push("/edge/webhooks", SAMPLE_DLR_TEXT);
  expect(reply.status).toBe(200);
  expect(await reply.json()).toEqual({ ok: true });
  await vi.waitFor(
    () =>
      expect(app.output()).toContain(
        "edge delivery b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1: DELIVRD",
      ),
    { timeout: 10_000 },
  );
});

it("refuses a wrong token on both routes, and serves its other route", async () => {
  for (const path of ["/webhooks", "/edge/webhooks"]) {
    const refused = await push(path, SAMPLE_DLR_TEXT, "wrong");
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.code).toBe("unauthorized");
  }
  expect(await (await fetch(`${app.origin}/health`)).json()).toEqual({ ok: true });
});
