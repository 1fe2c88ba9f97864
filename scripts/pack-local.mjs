// `pnpm pack:local [--out <dir>]`: builds the packages (`tsc -b`) and writes each publishable
// one's tarball to .tarballs/ (git-ignored), as .tarballs/<directory>.tgz (express.tgz,
// nestjs.tgz, cli.tgz …), for installing reportkit before it is on a registry:
//
//   npm i /path/to/reportkit/.tarballs/express.tgz express
//
// Each tarball is the one `npm pack` makes of the package (the files the registry would get),
// with its package.json changed in one way: a dependency on a sibling @reportkit package is
// `file:./<sibling>.tgz`, which npm resolves beside the tarball, so an install brings every
// @reportkit package it needs from this folder and the rest (zod, commander …) from the
// registry. Optional peers that are siblings (@reportkit/nestjs's platform adapters,
// @reportkit/cli's stores) are left out: npm would install none of them, yet look each one
// up where its spec says, on the registry for a version range, and relative to the project
// (not the tarball) for a file. They are loaded when present, installed by the user from this
// folder too, all of one version by construction.
// devDependencies are dropped (nothing installs them from a tarball). The pack check
// (scripts/pack-check.mjs) checks the registry's own form; this is a local stand-in for it.
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { publishablePackages } from "./publishable-packages.mjs";

const root = new URL("..", import.meta.url).pathname;
const args = process.argv.slice(2);
const outAt = args.indexOf("--out");
const usage = outAt === -1 ? args.length === 0 : outAt === 0 && args.length === 2;
if (!usage) {
  console.error(
    "pack:local: the only option is --out <dir> (default .tarballs/ in the repository).",
  );
  process.exit(2);
}
const out = outAt === -1 ? join(root, ".tarballs") : resolve(args[outAt + 1]);

function run(cmd, argv, cwd) {
  return new Promise((done, fail) => {
    execFile(cmd, argv, { cwd, encoding: "utf8", maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error === null) done(stdout);
      else fail(new Error(`${cmd} ${argv.join(" ")} (in ${cwd}) failed:\n${stdout}${stderr}`));
    });
  });
}

const packages = publishablePackages(root);
const tarballOf = new Map(packages.map((p) => [p.pkg.name, `${p.name}.tgz`]));

/** A sibling's `workspace:` range as that sibling's tarball in this folder. */
function localSpec(name, spec, where) {
  if (!String(spec).startsWith("workspace:")) return spec;
  const file = tarballOf.get(name);
  if (file === undefined) {
    throw new Error(`${where}: ${name} is not a publishable package of this repository.`);
  }
  return `file:./${file}`;
}

/** The local tarball's package.json: siblings by file, no optional sibling, no devDependencies. */
function localManifest(pkg) {
  const manifest = { ...pkg };
  delete manifest.devDependencies;
  const optionalSibling = (name) =>
    tarballOf.has(name) && pkg.peerDependenciesMeta?.[name]?.optional === true;
  if (pkg.peerDependencies !== undefined) {
    manifest.peerDependencies = Object.fromEntries(
      Object.entries(pkg.peerDependencies).filter(([name]) => !optionalSibling(name)),
    );
    manifest.peerDependenciesMeta = Object.fromEntries(
      Object.entries(pkg.peerDependenciesMeta ?? {}).filter(([name]) => !optionalSibling(name)),
    );
    for (const field of ["peerDependencies", "peerDependenciesMeta"]) {
      if (Object.keys(manifest[field]).length === 0) delete manifest[field];
    }
  }
  for (const field of ["dependencies", "optionalDependencies", "peerDependencies"]) {
    if (manifest[field] === undefined) continue;
    manifest[field] = Object.fromEntries(
      Object.entries(manifest[field]).map(([name, spec]) => [
        name,
        localSpec(name, spec, `${pkg.name} ${field}`),
      ]),
    );
  }
  return manifest;
}

/** npm pack of the package, its package.json rewritten, tarred again into `out`. */
async function packOne({ name, dir, pkg }, scratch) {
  const work = join(scratch, name);
  mkdirSync(work);
  const [{ filename }] = JSON.parse(
    await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], dir),
  );
  await run("tar", ["-xzf", filename], work);
  const unpacked = join(work, "package");
  writeFileSync(join(unpacked, "package.json"), `${JSON.stringify(localManifest(pkg), null, 2)}\n`);
  // The same layout npm packs (package/…); npm reads nothing else of a tarball.
  await run("tar", ["-czf", join(out, `${name}.tgz`), "package"], work);
  const siblings = (field, optional) =>
    Object.entries(pkg[field] ?? {})
      .filter(
        ([sibling, spec]) =>
          String(spec).startsWith("workspace:") &&
          (pkg.peerDependenciesMeta?.[sibling]?.optional === true) === optional,
      )
      .map(([sibling]) => sibling);
  return {
    file: `${name}.tgz`,
    name: pkg.name,
    version: pkg.version,
    brings: [...siblings("dependencies", false), ...siblings("peerDependencies", false)],
    optional: siblings("peerDependencies", true),
  };
}

console.log("pack:local: tsc -b");
const built = spawnSync(join(root, "node_modules/.bin/tsc"), ["-b"], {
  cwd: root,
  stdio: "inherit",
});
if (built.status !== 0) {
  console.error("pack:local: the build failed (above); no tarball written.");
  process.exit(1);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const scratch = mkdtempSync(join(tmpdir(), "reportkit-pack-local-"));
try {
  // Two at a time: each npm pack is a process of its own.
  const results = new Array(packages.length);
  let next = 0;
  const worker = async () => {
    while (next < packages.length) {
      const i = next++;
      results[i] = await packOne(packages[i], scratch);
    }
  };
  await Promise.all([worker(), worker()]);
  const where = relative(process.cwd(), out) || ".";
  for (const r of results) {
    const deps = [
      r.brings.length === 0 ? "" : `brings ${r.brings.join(", ")}`,
      r.optional.length === 0 ? "" : `optional: ${r.optional.join(", ")}`,
    ].filter(Boolean);
    const said = deps.length === 0 ? "" : ` (${deps.join("; ")})`;
    console.log(`pack:local ${r.name}@${r.version}: ${join(where, r.file)}${said}`);
  }
  console.log(
    `pack:local: ${results.length} tarballs in ${out}; install one with npm i ${join(out, "express.tgz")} (and its framework, e.g. express)`,
  );
} catch (error) {
  console.error(`pack:local: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
