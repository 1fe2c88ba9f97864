// `pnpm demo`, the README's first command, run as a user runs it.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

it("pnpm demo exits 0 and shows the verification, the retry, the typed reports and the attempt log", async () => {
  const { code, stdout, stderr } = await new Promise<{
    code: number;
    stdout: string;
    stderr: string;
  }>((resolve) => {
    execFile("pnpm", ["demo"], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code ?? -1), stdout, stderr });
    });
  });
  expect(stderr).not.toMatch(/Demo FAILED/);
  expect(code).toBe(0);
  expect(stdout).toContain("Demo OK: the webhook verified, 2 reports delivered, 1 after a retry.");
  // The provider's handshake first: POST ?token= (masked), answered 200 {"challenge"}.
  expect(stdout).toMatch(/verification \S+ → POST \S+\?token=\*{8} {2}200 {2}verified/);
  expect(stdout).not.toMatch(/demo-webhook-secret|demo-verification-token/);
  expect(stdout).toMatch(/#1\/4 {2}500 {2}retry at/);
  expect(stdout).toMatch(/delivery \S+:1 → POST \S+ {2}#2\/4 {2}200 {2}delivered/);
  expect(stdout).toMatch(/call \S+ → POST \S+ {2}#1\/4 {2}200 {2}delivered/);
  expect(stdout).toContain("type: 'delivery'");
  expect(stdout).toContain("type: 'call'");
  expect(stdout).toContain("custom: 'order-1001'");
}, 60_000);
