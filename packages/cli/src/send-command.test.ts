// `reportkit send` as a new user runs it (the built CLI in a child process): what it prints never
// holds the webhook's secret (--secret, its old name --token, or the environment), and it does not load BullMQ or ioredis (only the `queue` commands do).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const TOKEN = "Echoed-Secret-Token-42";

let server: http.Server;
let url: string;
let dir: string;

beforeAll(async () => {
  // A receiver that refuses, echoing the Authorization header and the token in other cases.
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const given = req.headers.authorization ?? "";
      res.writeHead(401, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          error: `bad credentials: ${given}`,
          upper: given.toUpperCase(),
          lower: given.toLowerCase(),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  dir = mkdtempSync(join(tmpdir(), "reportkit-send-"));
});

afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], nodeArgs: string[] = [], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const clean: NodeJS.ProcessEnv = { ...process.env, ...env };
    if (!("REPORTKIT_TOKEN" in env)) delete clean.REPORTKIT_TOKEN;
    if (!("REPORTKIT_SECRET" in env)) delete clean.REPORTKIT_SECRET;
    execFile(
      process.execPath,
      [...nodeArgs, CLI, ...args],
      { cwd: ROOT, env: clean, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe("reportkit send redacts the secret from everything it prints", () => {
  it("a receiver echoing Authorization (any case): the secret is never printed, [token] is", async () => {
    for (const [args, env] of [
      [["--secret", TOKEN], {}],
      [["--token", TOKEN], {}],
      [[], { REPORTKIT_SECRET: TOKEN }],
      [[], { REPORTKIT_TOKEN: TOKEN }],
    ] as const) {
      const sent = await run(
        ["send", "delivery", "--to", url, "--retries", "1", "--interval", "10ms", ...args],
        [],
        env,
      );
      expect(sent.code).toBe(1);
      const printed = sent.stdout + sent.stderr;
      expect(printed.toLowerCase()).not.toContain(TOKEN.toLowerCase());
      expect(printed).toContain("bad credentials: Bearer [token]");
      expect(sent.stderr).toMatch(/did not accept the report: dropped after 2 attempts/);
      expect(sent.stderr).toContain("[token]");
    }
  });

  it("--json too", async () => {
    const sent = await run([
      "send",
      "call",
      "--to",
      url,
      "--retries",
      "0",
      "--secret",
      TOKEN,
      "--json",
    ]);
    expect(sent.code).toBe(1);
    expect((sent.stdout + sent.stderr).toLowerCase()).not.toContain(TOKEN.toLowerCase());
    const printed = JSON.parse(sent.stdout) as { attempts: { response_body: string }[] };
    expect(printed.attempts[0]?.response_body).toContain("bad credentials: Bearer [token]");
  });
});

describe("reportkit send loads neither BullMQ nor ioredis", () => {
  it("the modules a send resolves (traced by a loader hook) include none of theirs; `queue` does load them", async () => {
    const trace = join(dir, "resolved.txt");
    const hooks = join(dir, "hooks.mjs");
    writeFileSync(
      hooks,
      `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(trace)}, resolved.url + "\\n");
  return resolved;
}
`,
    );
    const register = join(dir, "register.mjs");
    writeFileSync(
      register,
      `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );
    const traced = async (args: string[]) => {
      writeFileSync(trace, "");
      await run(args, ["--import", pathToFileURL(register).href]);
      return readFileSync(trace, "utf8").split("\n").filter(Boolean);
    };

    const send = await traced(["send", "delivery", "--to", url, "--retries", "0"]);
    // The trace works: the CLI's own modules and the sandbox's are in it.
    expect(send.some((u) => u.includes("/send-command.js"))).toBe(true);
    expect(send.some((u) => u.includes("sandbox"))).toBe(true);
    expect(send.filter((u) => /bullmq|ioredis/i.test(u))).toEqual([]);

    // The same trace sees them when a queue command runs (it fails to connect: port 9).
    const queue = await traced(["queue", "failed", "--redis", "redis://127.0.0.1:9"]);
    expect(queue.some((u) => /node_modules\/.*bullmq/.test(u))).toBe(true);
  });
});
