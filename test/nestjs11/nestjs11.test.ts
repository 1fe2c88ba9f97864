// @reportkit/nestjs on NestJS 11, both platforms. test/ depends on NestJS 12, and the module
// resolves @nestjs/* from its own devDependencies (12), so the app (app.ts) is bundled with the
// module's sources and its @nestjs/* imports left as imports: run from here, they are this
// directory's NestJS 11. The app's own global guard refuses everything.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_CALL_TEXT, SAMPLE_DLR_TEXT, TOKEN } from "../fixtures/samples.js";

const here = fileURLToPath(new URL(".", import.meta.url));
// Inside node_modules: neither linted nor committed, and @nestjs/* resolve from here.
const bundle = `${here}node_modules/.reportkit-build/app.mjs`;
const TOKEN_B = "token-of-account-b";

beforeAll(async () => {
  await build({
    entryPoints: [`${here}app.ts`],
    outfile: bundle,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    conditions: ["source"],
    external: ["@nestjs/*", "reflect-metadata", "rxjs"],
    tsconfigRaw: { compilerOptions: { experimentalDecorators: true } },
    // CommonJS dependencies bundled into ESM (fastify-plugin 6 requires node:path) need a
    // `require`: esbuild's own stub throws for any it was not given.
    banner: {
      js: 'import { createRequire as bannerRequire } from "node:module"; const require = bannerRequire(import.meta.url);',
    },
    logLevel: "silent",
  });
}, 60_000);

interface RunningApp {
  origin: string;
  version: string;
  output(): string;
  child: ChildProcess;
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill();
});

function startApp(platform: string, env: Record<string, string> = {}): Promise<RunningApp> {
  const child = spawn(process.execPath, [bundle], {
    cwd: here,
    env: { ...process.env, PLATFORM: platform, TOKEN_A: TOKEN, TOKEN_B, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the app did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /nest (\S+) listening on (http:\/\/\S+)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve({ version: match[1] ?? "", origin: match[2] ?? "", output: () => output, child });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the app exited (${code}):\n${output}`));
    });
  });
}

const post = (origin: string, path: string, body: string, token: string) =>
  fetch(`${origin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body,
  });

describe.each(["express", "fastify"])("@reportkit/nestjs on NestJS 11, %s platform", (platform) => {
  it("both reports reach the decorated methods typed; 401; the guard guards only the app's route; two modules", async () => {
    const app = await startApp(platform);
    expect(app.version).toMatch(/^11\./);
    expect((await post(app.origin, "/webhooks", SAMPLE_DLR_TEXT, TOKEN)).status).toBe(200);
    expect((await post(app.origin, "/webhooks", SAMPLE_CALL_TEXT, TOKEN)).status).toBe(200);
    expect((await post(app.origin, "/webhooks", SAMPLE_DLR_TEXT, "wrong")).status).toBe(401);
    expect((await post(app.origin, "/webhooks/b", SAMPLE_DLR_TEXT, TOKEN_B)).status).toBe(200);
    expect((await post(app.origin, "/webhooks/b", SAMPLE_DLR_TEXT, TOKEN)).status).toBe(401);
    expect((await fetch(`${app.origin}/orders`)).status).toBe(403);
    await vi.waitFor(
      () => {
        expect(app.output()).toContain(
          "delivery b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1 at 2021-04-09T10:57:51.000Z",
        );
        expect(app.output()).toContain("call 5f2b1a9c-3d4e-4f60-8a7b-9c0d1e2f3a4b: 23s");
        expect(app.output()).toContain("b delivery b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1");
      },
      { timeout: 10_000 },
    );
    app.child.kill();
  });

  it("a method that throws: 500, and the retry runs it again (200)", async () => {
    const app = await startApp(platform, { FAIL_FIRST: "1" });
    const failed = await post(app.origin, "/webhooks", SAMPLE_DLR_TEXT, TOKEN);
    expect(failed.status).toBe(500);
    expect((await failed.json()).error.code).toBe("handler_failed");
    const retry = await post(app.origin, "/webhooks", SAMPLE_DLR_TEXT, TOKEN);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ ok: true });
    app.child.kill();
  });
});
