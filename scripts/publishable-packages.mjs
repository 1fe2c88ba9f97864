// The packages of packages/ that are published (not "private"), for the pack check and
// pack:local alike.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * @param {string} root the repository's root directory
 * @returns {{ name: string, dir: string, pkg: { name: string, version: string } & Record<string, unknown> }[]}
 *   `name` is the directory name (express), `pkg` the parsed package.json
 */
export function publishablePackages(root) {
  return readdirSync(join(root, "packages"))
    .map((name) => ({ name, dir: join(root, "packages", name) }))
    .map((p) => ({ ...p, pkg: JSON.parse(readFileSync(join(p.dir, "package.json"), "utf8")) }))
    .filter((p) => !p.pkg.private);
}
