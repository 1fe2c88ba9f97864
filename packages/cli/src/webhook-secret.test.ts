// The webhook's secret as `send`, `replay` and `reconcile` take it (one helper): --secret, its
// old name --token, then REPORTKIT_SECRET, then REPORTKIT_TOKEN; the same help in the three;
// sent as `Authorization: Bearer <secret>` to a real HTTP receiver; never printed.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "./main.js";

let receiver: http.Server;
let url: string;
const bearers: (string | undefined)[] = [];

beforeAll(async () => {
  // Echoes the Authorization it got: what the CLI prints must still not hold the secret.
  receiver = http.createServer((req, res) => {
    bearers.push(req.headers.authorization);
    req.resume();
    req.on("end", () => res.writeHead(200).end(`got ${req.headers.authorization ?? "none"}`));
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => {
    receiver.close(() => resolve());
    receiver.closeAllConnections();
  });
});

async function reportkit(args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await main(["node", "reportkit", ...args], {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env,
    stopSignal: () => new Promise(() => {}),
  });
  return { code, stdout, stderr };
}

const send = ["send", "delivery", "--to", "", "--retries", "0"];
const sendTo = (extra: string[]) => [...send.slice(0, 3), url, ...send.slice(4), ...extra];

describe("the webhook's secret in send, replay and reconcile", () => {
  it.each([
    ["--secret", ["--secret", "flag-secret-1"], {}, "flag-secret-1"],
    ["--token, its old name", ["--token", "flag-token-2"], {}, "flag-token-2"],
    ["REPORTKIT_SECRET", [], { REPORTKIT_SECRET: "env-secret-3" }, "env-secret-3"],
    ["REPORTKIT_TOKEN, its old name", [], { REPORTKIT_TOKEN: "env-token-4" }, "env-token-4"],
    [
      "REPORTKIT_SECRET before REPORTKIT_TOKEN",
      [],
      { REPORTKIT_SECRET: "env-secret-5", REPORTKIT_TOKEN: "env-token-5" },
      "env-secret-5",
    ],
    [
      "a flag before the environment",
      ["--secret", "flag-6"],
      { REPORTKIT_SECRET: "env-6" },
      "flag-6",
    ],
  ] as const)(
    "send takes %s and sends it as the bearer, never printing it",
    async (_, args, env, secret) => {
      const run = await reportkit(sendTo([...args]), env);
      expect(run, run.stderr).toMatchObject({ code: 0, stderr: "" });
      expect(bearers.at(-1)).toBe(`Bearer ${secret}`);
      expect(run.stdout + run.stderr).not.toContain(secret);
    },
  );

  it("refuses --secret with --token, in each of the three", async () => {
    for (const command of [sendTo([]), ["replay", "--to", url], ["reconcile", "--to", url]]) {
      const run = await reportkit([...command, "--secret", "a-secret", "--token", "b-secret"]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /option '--token <secret>' cannot be used with option '--secret <secret>'/,
      );
    }
  });

  it("replay and reconcile ask for the secret by its name when none is given", async () => {
    const replay = await reportkit(["replay", "--to", url, "--db", "redis://127.0.0.1:9"]);
    expect(replay.stderr).toBe(
      "reportkit: give --secret (or set REPORTKIT_SECRET): the webhook's secret, which your receiver checks.\n",
    );
    const reconcile = await reportkit(["reconcile", "--to", url], {
      REPORTKIT_BASE_URL: "http://127.0.0.1:9/api/v2/",
      REPORTKIT_API_TOKEN: "api-token",
    });
    expect(reconcile.stderr).toBe(
      "reportkit: give --secret (or set REPORTKIT_SECRET): the webhook's secret, which your receiver checks.\n",
    );
  });

  it("the three say the same of --secret and --token in their help", async () => {
    for (const command of ["send", "replay", "reconcile"]) {
      const help = (await reportkit([command, "--help"])).stdout.replace(/\s+/g, " ");
      expect(help).toMatch(
        /--secret <secret> the webhook's secret, sent as Bearer[^(]*\(env: REPORTKIT_SECRET\)/,
      );
      expect(help).toContain(
        "--token <secret> alias of --secret, its old name (env: REPORTKIT_TOKEN, read after REPORTKIT_SECRET)",
      );
    }
  });
});
