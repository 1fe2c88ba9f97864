// `reportkit webhooks create|edit --secret/--token` (alias --verification-token), what `show`
// says of the two credentials (which is set, never a value), and --challenge, with the built
// CLI against a real sandbox and a real HTTP receiver, and against an API that is not a sandbox.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildCli, type CliRun, reportkit as run } from "../../../../test/support/reportkit-cli.js";

const API_TOKEN = "webhooks-credentials-api-token";
const SECRET = "cli-hook-secret-5150";
const TOKEN = "cli-hook-token-8086";

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

let sandbox: Sandbox;
let receiver: http.Server;
let uri: string;
const seen: Seen[] = [];
/** Whether the receiver answers the verification as the provider's page asks. */
let answersVerification = true;

beforeAll(async () => {
  buildCli();
  sandbox = await createSandbox({ token: API_TOKEN, payloads: "complete" });
  receiver = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    seen.push({
      method: req.method ?? "",
      url: req.url ?? "",
      authorization: req.headers.authorization,
      body,
    });
    const challenge = req.url?.includes("token=") ? JSON.parse(body).challenge : undefined;
    if (challenge !== undefined && answersVerification) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ challenge }));
    } else res.writeHead(200).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  uri = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
});

beforeEach(() => {
  seen.length = 0;
  answersVerification = true;
});

afterAll(async () => {
  await sandbox.close();
  await new Promise<void>((resolve) => {
    receiver.close(() => resolve());
    receiver.closeAllConnections();
  });
});

function reportkit(args: string[], baseUrl = sandbox.baseUrl): Promise<CliRun> {
  return run(args, { REPORTKIT_BASE_URL: baseUrl, REPORTKIT_API_TOKEN: API_TOKEN });
}

const idOf = (stdout: string) => /^(?:Created|Updated) webhook (\S+)$/m.exec(stdout)?.[1] as string;

async function pushedBearer(webhookId: string): Promise<string | undefined> {
  await sandbox.sendSms({ webhookId }).outcome;
  return seen.at(-1)?.authorization;
}

describe("reportkit webhooks --secret and --token", () => {
  it("create --secret --token --challenge: verified with the token, pushed with the secret; neither printed", async () => {
    const created = await reportkit([
      "webhooks",
      "create",
      "--name",
      "both",
      "--uri",
      uri,
      "--secret",
      SECRET,
      "--token",
      TOKEN,
      "--challenge",
    ]);
    expect(created, created.stderr).toMatchObject({ code: 0, stderr: "" });
    expect(created.stdout).toMatch(/^secret +set: the bearer of every push$/m);
    expect(created.stdout).toMatch(/^token +set: the validation key of the verification$/m);
    expect(created.stdout).toMatch(
      /^verification +passed: the receiver answered the verification \(http:\S+\/webhooks\?token=\*{8}\)$/m,
    );
    // One verification request (the create's), as the provider's page shows it.
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: "POST",
      url: `/webhooks?token=${TOKEN}`,
      authorization: `Bearer ${SECRET}`,
    });
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({
      validation_key: TOKEN,
      challenge: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
    const id = idOf(created.stdout);
    expect(await pushedBearer(id)).toBe(`Bearer ${SECRET}`);

    const shown = await reportkit(["webhooks", "show", id]);
    const json = await reportkit(["webhooks", "show", id, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      secret: "********",
      bearer: { set: true, from: "secret" },
      token: { set: true },
    });
    for (const run of [created, shown, json]) {
      expect(run.stdout + run.stderr).not.toContain(SECRET);
      expect(run.stdout + run.stderr).not.toContain(TOKEN);
    }
  });

  it("create --verification-token (the old name) sets the token; a webhook without a secret is pushed with none", async () => {
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
    expect(created.stdout).toMatch(
      /^secret +none: pushes carry no Authorization; give the webhook's secret with --secret$/m,
    );
    expect(created.stdout).toMatch(/^token +set: the validation key of the verification$/m);
    // Created with a token, it was verified (as the provider does), without a bearer.
    expect(created.stdout).toMatch(/^verification +passed/m);
    expect(seen[0]).toMatchObject({ url: "/webhooks?token=alias-token-1" });
    expect(seen[0]?.authorization).toBeUndefined();
    expect(created.stdout).not.toContain("alias-token-1");
    // The token is never the bearer.
    expect(await pushedBearer(idOf(created.stdout))).toBeUndefined();
  });

  it("a bare webhook says neither is set and sends no verification; edit --secret, then edit --token --challenge", async () => {
    const created = await reportkit(["webhooks", "create", "--name", "bare", "--uri", uri]);
    expect(created.stdout).toMatch(
      /^token +none: no verification is sent; give one with --token$/m,
    );
    expect(created.stdout).not.toMatch(/^verification/m);
    expect(seen).toEqual([]);
    const id = idOf(created.stdout);
    const secret = await reportkit(["webhooks", "edit", id, "--secret", "edited-secret-2"]);
    expect(secret.stdout).toMatch(/^secret +set: the bearer of every push$/m);
    expect(await pushedBearer(id)).toBe("Bearer edited-secret-2");
    // An edit sends no verification of itself: --challenge does.
    seen.length = 0;
    const token = await reportkit(["webhooks", "edit", id, "--token", "edited-token-2"]);
    expect(seen).toEqual([]);
    expect(token.stdout).toMatch(/^token +set/m);
    const verified = await reportkit(["webhooks", "edit", id, "--challenge"]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^verification +passed/m);
    expect(seen.map((s) => [s.url, s.authorization])).toEqual([
      ["/webhooks?token=edited-token-2", "Bearer edited-secret-2"],
    ]);
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

  it("--challenge against a receiver that does not echo the challenge: exit 1, saying why", async () => {
    answersVerification = false;
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
    const why =
      'answered 200 but not with {"challenge": "<the challenge sent>"} in JSON (an empty body)';
    expect(created.stdout).toMatch(new RegExp(`^verification +failed: ${literal(why)}$`, "m"));
    expect(created.stderr).toBe(`reportkit: the verification failed: ${why}\n`);
    // Without a token there is nothing to verify with: --challenge says so, exit 1.
    const bare = await reportkit([
      "webhooks",
      "create",
      "--name",
      "n",
      "--uri",
      uri,
      "--challenge",
    ]);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(
      /^reportkit: the verification not sent: the webhook has no token, the validation key/,
    );
  });

  it("show against an API that is not the sandbox: the API's masked values, no verdict", async () => {
    // A management API with the documented show reply only (no sandbox/ endpoints).
    const resource = {
      id: "5f0c9c9e-0000-4000-8000-000000000001",
      name: "real",
      uri: "https://my.app/webhooks",
      secret: "********",
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
      expect(shown.stdout).toMatch(/^secret +\*{8}$/m);
      expect(shown.stdout).toMatch(/^token +\*{8} \(the API's masked verification_code\)$/m);
      expect(shown.stdout).not.toMatch(/^verification/m);
    } finally {
      await new Promise<void>((resolve) => provider.close(() => resolve()));
    }
  });

  it("the help says which is which, as the provider's pages do", async () => {
    for (const verb of ["create", "edit"]) {
      const help = (await reportkit(["webhooks", verb, "--help"])).stdout.replace(/\s+/g, " ");
      expect(help).toContain(
        "the webhook's secret: sent as `Authorization: Bearer <secret>` with every push (your receiver's REPORTKIT_SECRET)",
      );
      expect(help).toContain(
        "the webhook's token, the validation key: sent once, to verify the webhook when it is created (POST <uri>?token=<token> with {validation_key, challenge}; your receiver's REPORTKIT_VERIFICATION_TOKEN)",
      );
    }
  });
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
