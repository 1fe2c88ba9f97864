// A real Next.js app (test/next-app), built with `next build` and served by `next start`: the
// conformance table through @reportkit/next's route handler on the Node.js and the Edge runtime,
// and the secret from REPORTKIT_SECRET in next start's environment (none at build time).
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_DLR_TEXT, TOKEN } from "../fixtures/samples.js";
import { OP_HEADER } from "../next-app/conformance-route.js";
import { buildAndStartNext, type RunningNextApp } from "../support/next-app.js";
import { APP_HEADER, type Call, FAULT_HEADER, type Setup } from "./setup.js";
import {
  bodyBytes,
  bodyInit,
  chunksOf,
  isFailing,
  type OpenApp,
  runConformance,
  toReply,
} from "./suite.js";

let app: RunningNextApp;

beforeAll(async () => {
  // Built without REPORTKIT_SECRET (next build loads every route module); started with it.
  app = await buildAndStartNext(fileURLToPath(new URL("../next-app", import.meta.url)), {
    REPORTKIT_SECRET: TOKEN,
  });
  console.log(`test/next-app: next build took ${app.buildSeconds} s`);
}, 600_000);

afterAll(() => app?.stop());

function target(runtime: "node" | "edge"): OpenApp {
  return async (setup: Setup) => {
    const opened = await fetch(`${app.origin}/${runtime}/hook`, {
      method: "POST",
      headers: { "content-type": "application/json", [OP_HEADER]: "setup" },
      body: JSON.stringify(setup),
    });
    const reply = (await opened.json()) as {
      id?: string;
      constructionError?: { name: string; message: string };
    };
    if (reply.constructionError !== undefined) {
      const { name, message } = reply.constructionError;
      throw Object.assign(new Error(message), { name });
    }
    const { id } = reply;
    if (opened.status !== 200 || id === undefined) {
      throw new Error(`/${runtime}/hook answered ${opened.status}`);
    }
    return {
      async send(spec) {
        const body = chunksOf(spec) === undefined ? bodyBytes(spec) : bodyInit(spec);
        const response = await fetch(`${app.origin}${spec.url}`, {
          method: spec.method,
          headers: {
            ...spec.headers,
            "x-next-runtime": runtime,
            [APP_HEADER]: id,
            ...(isFailing(spec) ? { [FAULT_HEADER]: "1" } : {}),
          },
          ...(body === undefined ? {} : { body, duplex: "half" }),
        } as RequestInit);
        return toReply(response);
      },
      async takeCalls() {
        const calls = await fetch(`${app.origin}/${runtime}/hook`, {
          headers: { [OP_HEADER]: "calls" },
        });
        return (await calls.json()) as Call[];
      },
      async close() {
        await fetch(`${app.origin}/${runtime}/hook?id=${id}`, {
          method: "POST",
          headers: { [OP_HEADER]: "close" },
        });
      },
    };
  };
}

runConformance("@reportkit/next, next start, Node.js runtime", target("node"));
// On Edge only /webhooks itself is routed (see next.config.mjs): no subpaths setups there.
runConformance("@reportkit/next, next start, Edge runtime", target("edge"), { exactPath: true });

describe.each(["node", "edge"] as const)("@reportkit/next on the %s runtime", (runtime) => {
  it("a DLR: 200 and the handler's call; a wrong token: 401 and no call", async () => {
    const open = await target(runtime)({});
    const ok = await open.send({
      method: "POST",
      url: "/webhooks",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: SAMPLE_DLR_TEXT,
    });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ ok: true });
    const calls = await open.takeCalls();
    expect(calls.map((c) => c.handler)).toEqual(["onDelivery"]);
    expect(calls[0]?.report).toMatchObject({
      id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
      status: "DELIVRD",
    });
    const wrong = await open.send({
      method: "POST",
      url: "/webhooks",
      headers: { authorization: "Bearer wrong", "content-type": "application/json" },
      body: SAMPLE_DLR_TEXT,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers["www-authenticate"]).toBe(
      'Bearer realm="reportkit", error="invalid_token"',
    );
    expect(await open.takeCalls()).toEqual([]);
  });
});
