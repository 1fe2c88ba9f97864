import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll } from "vitest";
import { TOKEN } from "../fixtures/samples.js";
import { APP_HEADER, type Call, FAULT_HEADER, type Setup } from "./setup.js";
import { bodyBytes, bodyInit, chunksOf, isFailing, runConformance, toReply } from "./suite.js";

// Hono + @reportkit/hono + @reportkit/core inside Cloudflare's real runtime (workerd), without
// nodejs_compat: a node: import anywhere in them would fail the bundle or the load.
let mf: Miniflare;

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL("./worker.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["source", "workerd", "worker", "import"],
    write: false,
    logLevel: "silent",
  });
  mf = new Miniflare({
    modules: true,
    script: bundle.outputFiles[0]?.text ?? "",
    compatibilityDate: "2026-04-01",
    bindings: { REPORTKIT_SECRET: TOKEN },
  });
  await mf.ready;
});

afterAll(() => mf?.dispose());

/** Builds the worker's receiver for the setup, and answers its id; a construction error is thrown here. */
async function openSetup(setup: Setup): Promise<string> {
  const response = await mf.dispatchFetch("http://localhost/__setup", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(setup),
  });
  const reply = (await response.json()) as {
    id?: string;
    constructionError?: { name: string; message: string };
  };
  if (reply.constructionError !== undefined) {
    const { name, message } = reply.constructionError;
    throw Object.assign(new Error(message), { name });
  }
  if (response.status !== 200 || reply.id === undefined) {
    throw new Error(`/__setup answered ${response.status}`);
  }
  return reply.id;
}

runConformance("@reportkit/hono in workerd (miniflare)", async (setup) => {
  const id = await openSetup(setup);
  return {
    async send(spec) {
      // A failing body is sent whole; the worker's test stage makes it fail.
      const body = chunksOf(spec) === undefined ? bodyBytes(spec) : bodyInit(spec);
      const response = await mf.dispatchFetch(`http://localhost${spec.url}`, {
        method: spec.method,
        headers: {
          ...spec.headers,
          [APP_HEADER]: id,
          ...(isFailing(spec) ? { [FAULT_HEADER]: "1" } : {}),
        },
        ...(body === undefined ? {} : { body, duplex: "half" }),
      } as unknown as Parameters<Miniflare["dispatchFetch"]>[1]);
      return toReply(response as unknown as Response);
    },
    async takeCalls() {
      const response = await mf.dispatchFetch("http://localhost/__calls");
      return (await response.json()) as Call[];
    },
    async close() {
      await mf.dispatchFetch(`http://localhost/__close?id=${id}`, { method: "POST" });
    },
  };
});
