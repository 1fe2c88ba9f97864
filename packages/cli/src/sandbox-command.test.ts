// `reportkit sandbox` and the webhook's two credentials (the built CLI in a child process, a
// real HTTP receiver): the secret of its environment (REPORTKIT_SECRET, else REPORTKIT_TOKEN,
// its old name) is the bearer of webhooks without one; its start-up lines say so; it prints each
// verification it sends; and none of its lines shows a secret or a token.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "@reportkit/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const API_TOKEN = "sandbox-command-api-token";
const HOOK_TOKEN = "sandbox-command-hook-token";

let receiver: http.Server;
let receiverUrl: string;
const seen: { url: string; authorization: string | undefined }[] = [];
let child: ChildProcess | undefined;

beforeAll(async () => {
  execFileSync(join(ROOT, "node_modules/.bin/tsc"), ["-b", "packages/cli"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  // Answers the verification as the provider's page asks, and every push 200.
  receiver = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
    if (req.url?.includes("token=")) {
      const { challenge } = JSON.parse(body.replace(/,\s*}$/, "}")) as { challenge: string };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ challenge }));
    } else res.writeHead(200).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
});

afterEach(() => {
  if (child !== undefined && child.exitCode === null) child.kill("SIGKILL");
  child = undefined;
  seen.length = 0;
});

afterAll(async () => {
  await new Promise<void>((resolve) => {
    receiver.close(() => resolve());
    receiver.closeAllConnections();
  });
});

/** Starts `reportkit sandbox` with `env` (and none of the reportkit variables it is not given). */
async function sandbox(env: Record<string, string>) {
  const clean: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const key of ["REPORTKIT_SECRET", "REPORTKIT_TOKEN", "REPORTKIT_API_TOKEN"]) {
    if (!(key in env)) delete clean[key];
  }
  const proc = spawn(process.execPath, [CLI, "sandbox", "--port", "0", "--token", API_TOKEN], {
    cwd: ROOT,
    env: clean,
  });
  child = proc;
  let stdout = "";
  proc.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  await expect
    .poll(() => stdout, { timeout: 15_000, message: "the sandbox's start-up lines" })
    .toMatch(/Ctrl-C stops\.\n/);
  const baseUrl = /listening on (\S+)/.exec(stdout)?.[1] as string;
  return { output: () => stdout, client: createClient({ baseUrl, token: API_TOKEN }) };
}

describe("reportkit sandbox and the webhook's secret", () => {
  it("REPORTKIT_SECRET: the bearer of webhooks without one; verifications printed; no value shown", async () => {
    const secret = "env-secret-value-31337";
    const { output, client } = await sandbox({ REPORTKIT_SECRET: secret });
    expect(output()).toContain(
      "  push bearer  a webhook's --secret, else REPORTKIT_SECRET of this environment\n",
    );
    expect(output()).toContain(
      '  reportkit webhooks create --name local --uri http://127.0.0.1:3000/webhooks --secret "$REPORTKIT_SECRET" --token "$REPORTKIT_VERIFICATION_TOKEN" --challenge\n',
    );
    const hook = await client.webhooks.create({ name: "env", uri: receiverUrl, token: HOOK_TOKEN });
    // Verified as it was created, with the environment's secret as the bearer.
    expect(seen).toEqual([
      { url: `/webhooks?token=${HOOK_TOKEN}`, authorization: `Bearer ${secret}` },
    ]);
    await expect
      .poll(() => output(), { timeout: 10_000, message: "the verification's line" })
      .toMatch(
        new RegExp(
          `^\\d\\d:\\d\\d:\\d\\d verification ${hook.id} → POST http://127\\.0\\.0\\.1:\\d+/webhooks\\?token=\\*{8}  200  verified$`,
          "m",
        ),
      );
    const sent = await fetch(new URL("sandbox/sms", client.baseUrl), {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ webhook_id: hook.id }),
    });
    expect(sent.status).toBe(200);
    await expect
      .poll(() => output(), { timeout: 10_000, message: "the push's line" })
      .toMatch(/#1\/4 {2}200 {2}delivered/);
    expect(seen.at(-1)).toEqual({ url: "/webhooks", authorization: `Bearer ${secret}` });
    expect(output()).not.toContain(secret);
    expect(output()).not.toContain(HOOK_TOKEN);
  });

  it("REPORTKIT_TOKEN, its old name: still the bearer, and the start-up line says to rename it", async () => {
    const { output, client } = await sandbox({ REPORTKIT_TOKEN: "old-name-secret-4242" });
    expect(output()).toContain(
      "  push bearer  a webhook's --secret, else REPORTKIT_TOKEN of this environment (its old name: rename it REPORTKIT_SECRET)\n",
    );
    const hook = await client.webhooks.create({ name: "old", uri: receiverUrl });
    const sent = await fetch(new URL("sandbox/sms", client.baseUrl), {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ webhook_id: hook.id }),
    });
    expect(sent.status).toBe(200);
    await expect
      .poll(() => seen.at(-1)?.authorization, { timeout: 10_000, message: "the push" })
      .toBe("Bearer old-name-secret-4242");
    expect(output()).not.toContain("old-name-secret-4242");
  });

  it("neither: says a webhook without --secret is pushed without Authorization", async () => {
    const { output } = await sandbox({});
    expect(output()).toContain(
      "  push bearer  a webhook's --secret (REPORTKIT_SECRET is not set here: a webhook without --secret is pushed without Authorization)\n",
    );
  });
});
