// Packaging checks for every publishable package: publint (package.json and files) and
// @arethetypeswrong/cli (types resolve for ESM consumers). Run after `tsc -b`.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const packages = readdirSync(join(root, "packages"))
  .map((name) => join(root, "packages", name))
  .filter((dir) => !JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).private);

for (const dir of packages) {
  const run = (cmd, args) => execFileSync(cmd, args, { cwd: dir, stdio: "inherit" });
  console.log(`\n# ${dir.slice(root.length)}`);
  run(join(root, "node_modules/.bin/publint"), ["--strict"]);
  run(join(root, "node_modules/.bin/attw"), ["--pack", ".", "--profile", "esm-only"]);
}
