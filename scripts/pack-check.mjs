// Packaging checks for every publishable package, run after `tsc -b`:
// - package.json: license, repository (with this package's directory), homepage and bugs;
// - the tarball `npm pack` builds: README.md, LICENSE (the root LICENSE, unchanged) and dist/;
// - publint --strict (package.json and files) and @arethetypeswrong/cli (types resolve for
//   ESM consumers) on that same tarball.
// Quiet when all is well: one line per package, the tools' own output only when they fail.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishablePackages } from "./publishable-packages.mjs";

const root = new URL("..", import.meta.url).pathname;
const bin = (name) => join(root, "node_modules/.bin", name);
const REPOSITORY = "https://github.com/reportkit/reportkit";
const license = readFileSync(join(root, "LICENSE"), "utf8");

const packages = publishablePackages(root);

/** Runs a tool; its output is kept and shown only when it fails. */
function run(cmd, args, cwd) {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, encoding: "utf8", maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error === null) resolve({ ok: true, output: stdout });
      else resolve({ ok: false, output: `${stdout}${stderr}` || String(error) });
    });
  });
}

function fieldProblems({ name, dir, pkg }) {
  const problems = [];
  const where = `packages/${name}/package.json`;
  if (pkg.license !== "MIT") problems.push(`${where}: "license" must be "MIT"`);
  const repo = pkg.repository;
  if (typeof repo !== "object" || !String(repo.url ?? "").includes(REPOSITORY.slice(8))) {
    problems.push(
      `${where}: "repository" must be { type: "git", url: "git+${REPOSITORY}.git", directory }`,
    );
  } else if (repo.directory !== `packages/${name}`) {
    problems.push(
      `${where}: "repository.directory" must be "packages/${name}", not ${JSON.stringify(repo.directory)}`,
    );
  }
  if (typeof pkg.homepage !== "string" || !pkg.homepage.startsWith(REPOSITORY)) {
    problems.push(`${where}: "homepage" must be a page under ${REPOSITORY}`);
  }
  if (typeof pkg.bugs?.url !== "string" || !pkg.bugs.url.startsWith(REPOSITORY)) {
    problems.push(`${where}: "bugs.url" must be ${REPOSITORY}/issues`);
  }
  let copy = "";
  try {
    copy = readFileSync(join(dir, "LICENSE"), "utf8");
  } catch {}
  if (copy !== license) {
    problems.push(
      `packages/${name}/LICENSE: must be a copy of the root LICENSE (cp LICENSE packages/${name}/)`,
    );
  }
  return problems;
}

/** Every problem of one package, an empty list when it is ready to publish. */
async function check(p, scratch) {
  const problems = fieldProblems(p);
  const packed = await run(
    "npm",
    ["pack", "--json", "--ignore-scripts", "--pack-destination", scratch],
    p.dir,
  );
  if (!packed.ok) return [...problems, `npm pack failed:\n${packed.output}`];
  const [{ filename, files }] = JSON.parse(packed.output);
  const paths = new Set(files.map((f) => f.path));
  for (const required of [
    "README.md",
    "LICENSE",
    "package.json",
    "dist/index.js",
    "dist/index.d.ts",
  ]) {
    if (!paths.has(required)) problems.push(`the tarball has no ${required}`);
  }
  const tarball = join(scratch, filename);
  const [publint, attw] = await Promise.all([
    run(bin("publint"), ["run", tarball, "--strict"], p.dir),
    run(bin("attw"), [tarball, "--profile", "esm-only"], p.dir),
  ]);
  if (!publint.ok) problems.push(`publint --strict failed:\n${publint.output}`);
  if (!attw.ok) problems.push(`attw --profile esm-only failed:\n${attw.output}`);
  return problems;
}

const scratch = mkdtempSync(join(tmpdir(), "reportkit-pack-"));
let failed = 0;
try {
  // Two at a time: each npm pack and attw is a process of its own.
  const results = new Array(packages.length);
  let next = 0;
  const worker = async () => {
    while (next < packages.length) {
      const i = next++;
      results[i] = await check(packages[i], scratch);
    }
  };
  await Promise.all([worker(), worker()]);
  packages.forEach((p, i) => {
    const problems = results[i];
    if (problems.length > 0) failed++;
    console.log(`pack check ${p.pkg.name}: ${problems.length === 0 ? "ok" : "FAILED"}`);
    for (const problem of problems) console.log(`  ${problem.replaceAll("\n", "\n    ")}`);
  });
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

console.log(
  failed === 0
    ? `pack check: ${packages.length} packages ok (fields, README.md + LICENSE in the tarball, publint, attw)`
    : `pack check: ${failed} of ${packages.length} packages failed`,
);
process.exitCode = failed === 0 ? 0 : 1;
