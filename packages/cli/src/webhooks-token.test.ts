// `reportkit webhooks create|edit --token` (alias --verification-token) and what `show` says of
// the bearer, with the built CLI against a real sandbox and against an API that is not one.
import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const API_TOKEN = "webhooks-token-api-token";

let sandbox: Sandbox;
let receiver: http.Server;
let uri: string;
const bearers: (string | undefined)[] = [];

beforeAll(async () => {
  sandbox = await createSandbox({ token: API_TOKEN });
  receiver = http.createServer((req, res) => {
    bearers.push(req.headers.authorization);
    req.resume();
    req.on("end", () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  uri = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
});

afterAll(async () => {
  await sandbox.close();
  await new Promise<void>((resolve) => {
    receiver.close(() => resolve());
    receiver.closeAllConnections();
  });
});

function reportkit(args: string[], baseUrl = sandbox.baseUrl) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REPORTKIT_BASE_URL: baseUrl,
    REPORTKIT_API_TOKEN: API_TOKEN,
  };
  delete env.REPORTKIT_TOKEN;
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, env, timeout: 30_000 }, (e, o, r) => {
      resolve({
        code: e === null ? 0 : typeof e.code === "number" ? e.code : -1,
        stdout: o,
        stderr: r,
      });
    });
  });
}

const idOf = (stdout: string) => /^(?:Created|Updated) webhook (\S+)$/m.exec(stdout)?.[1] as string;

describe("reportkit webhooks --token", () => {
  it("create --verification-token (the old name) sets the token; show says so, never the value", async () => {
    const created = await reportkit([
      "webhooks",
      "create",
      "--name",
      "alias",
      "--uri",
      uri,
      "--verification-token",
      "alias-token-1",
    ]);
    expect(created.code).toBe(0);
    const shown = await reportkit(["webhooks", "show", idOf(created.stdout)]);
    expect(shown.stdout).toMatch(/^bearer +set, from the webhook's token$/m);
    expect(shown.stdout).toMatch(/^verification +\*{8} \(the API's masked verification_code\)$/m);
    expect(shown.stdout + created.stdout).not.toContain("alias-token-1");
    sandbox.sendSms({ webhookId: idOf(created.stdout) });
    await sandbox.settled();
    expect(bearers.at(-1)).toBe("Bearer alias-token-1");
  });

  it("a webhook without one says it is pushed with no Authorization; edit --token sets it", async () => {
    const created = await reportkit(["webhooks", "create", "--name", "bare", "--uri", uri]);
    expect(created.stdout).toMatch(
      /^bearer +none: pushes carry no Authorization; give the receiver's token with --token$/m,
    );
    const id = idOf(created.stdout);
    const edited = await reportkit(["webhooks", "edit", id, "--token", "edited-token-2"]);
    expect(edited.code).toBe(0);
    expect(edited.stdout).toMatch(/^bearer +set, from the webhook's token$/m);
    sandbox.sendSms({ webhookId: id });
    await sandbox.settled();
    expect(bearers.at(-1)).toBe("Bearer edited-token-2");
    const both = await reportkit([
      "webhooks",
      "edit",
      id,
      "--token",
      "a",
      "--verification-token",
      "b",
    ]);
    expect(both).toMatchObject({
      code: 1,
      stderr: "reportkit: give --token or its alias --verification-token, not both.\n",
    });
  });

  it("--challenge against a webhook whose receiver does not answer it: exit 1, saying why", async () => {
    const created = await reportkit([
      "webhooks",
      "create",
      "--name",
      "no responder",
      "--uri",
      uri,
      "--token",
      "t-3-token",
      "--challenge",
    ]);
    expect(created.code).toBe(1);
    expect(created.stdout).toMatch(/^challenge +failed: answered 200 but not with the challenge$/m);
    expect(created.stderr).toBe(
      "reportkit: the verification challenge failed: answered 200 but not with the challenge\n",
    );
  });

  it("show against an API that is not the sandbox: the bearer is not shown by it", async () => {
    // A management API with the documented show reply only (no sandbox/ endpoints).
    const resource = {
      id: "5f0c9c9e-0000-4000-8000-000000000001",
      name: "real",
      uri: "https://my.app/webhooks",
      secret: null,
      verification_code: "********",
      status: 1,
      created_at: "2022-10-19T07:40:13.000000Z",
      updated_at: "2022-10-19T07:40:13.000000Z",
    };
    const provider = http.createServer((req, res) => {
      const found = req.url === `/api/v2/developer/webhooks/${resource.id}`;
      res.writeHead(found ? 200 : 404, { "content-type": "application/json" });
      res.end(
        JSON.stringify(
          found
            ? { status: "OK", code: 200, message: "OK", data: resource }
            : { message: "Not Found" },
        ),
      );
    });
    await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/api/v2/`;
    try {
      const shown = await reportkit(["webhooks", "show", resource.id], base);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/^bearer +not shown by this API \(the sandbox shows it\)$/m);
    } finally {
      await new Promise<void>((resolve) => provider.close(() => resolve()));
    }
  });
});
