// A handler provider that takes its dependency by type needs decorator metadata, which tsx (the
// README's runner) does not emit: Nest would construct it without the dependency and every
// report would get 500 handler_failed. The module refuses to start instead, and says why and
// how to fix it. The same app, compiled with the metadata or written with @Inject, runs.
// Real apps in child processes (metadata-app.ts), built @reportkit/nestjs.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR_TEXT, TOKEN } from "../fixtures/samples.js";
import { listening } from "../support/example-process.js";

const here = fileURLToPath(new URL(".", import.meta.url));
// Inside test/node_modules: @nestjs/* and @reportkit/nestjs resolve from there.
const buildDir = fileURLToPath(new URL("../node_modules/.reportkit-build/", import.meta.url));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill();
});

function start(args: string[], reports: "by-type" | "by-token"): ChildProcess {
  const child = spawn(process.execPath, args, {
    cwd: here,
    env: { ...process.env, REPORTKIT_SECRET: TOKEN, REPORTS: reports },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return child;
}

/** Its exit code and everything it printed, or an error after 30 s. */
function exited(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the app neither started nor exited within 30 s:\n${output}`)),
      30_000,
    );
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function postDlr(origin: string): Promise<number> {
  const res = await fetch(`${origin}/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: SAMPLE_DLR_TEXT,
  });
  await res.text();
  return res.status;
}

async function receives(child: ChildProcess): Promise<void> {
  const app = await listening(child, "the NestJS app");
  expect(await postDlr(app.origin)).toBe(200);
  await vi.waitFor(
    () => expect(app.output()).toContain("stored b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1"),
    { timeout: 10_000, interval: 50 },
  );
}

describe("@reportkit/nestjs and decorator metadata", () => {
  it("under tsx, a handler provider taking its dependency by type: the app does not start, and says why and how to fix it", async () => {
    const { code, output } = await exited(start(["--import", "tsx", "metadata-app.ts"], "by-type"));
    expect(code).not.toBe(0);
    expect(output).not.toContain("listening on");
    const message = output.slice(output.indexOf("reportkit: ReportsByType"));
    expect(message).toMatch(/^reportkit: ReportsByType \(whose ReportsByType\.delivered handles/);
    expect(message).toContain("constructor parameter 0");
    expect(message).toContain('no decorator metadata ("design:paramtypes")');
    expect(message).toContain("500 handler_failed");
    expect(message).toContain("tsx and esbuild");
    expect(message).toContain("@Inject(Inbox)");
    expect(message).toContain("swc with decoratorMetadata");
  });

  it("under tsx, the same provider with @Inject(Inbox): it starts and stores the report", async () => {
    await receives(start(["--import", "tsx", "metadata-app.ts"], "by-token"));
  });

  it("compiled with emitDecoratorMetadata, the provider taking its dependency by type starts and stores the report", async () => {
    const source = readFileSync(`${here}metadata-app.ts`, "utf8");
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
      },
    });
    expect(outputText).toContain('"design:paramtypes", [Inbox]');
    mkdirSync(buildDir, { recursive: true });
    writeFileSync(`${buildDir}metadata-app.mjs`, outputText);
    await receives(start([`${buildDir}metadata-app.mjs`], "by-type"));
  });
});
