// The Node versions reportkit supports, stated once: the root package.json's `engines.node`.
// Every package says the same, or less when a dependency of its own needs a newer Node (then its
// range holds only versions that dependency supports); the README's line names the minimum and
// the lines CI tests, as .ci/run runs them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { publishablePackages } from "../../scripts/publishable-packages.mjs";

const root = new URL("../..", import.meta.url).pathname;
const rootRange = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Manifest).engines
  ?.node;

interface Manifest {
  name: string;
  version: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** The installed manifest of `name` as `dir` resolves it, or undefined when not installed. */
function installed(dir: string, name: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8"));
  } catch {
    return undefined;
  }
}

describe("the Node versions reportkit supports", () => {
  it("every package's engines.node is the root's, or narrower where a dependency of its own needs it", () => {
    expect(rootRange).toBeDefined();
    const problems: string[] = [];
    for (const { dir, pkg } of publishablePackages(root)) {
      const manifest = pkg as Manifest;
      const range = manifest.engines?.node;
      if (range === undefined) {
        problems.push(`${manifest.name}: no engines.node; give it the root's "${rootRange}".`);
        continue;
      }
      if (!semver.subset(range, String(rootRange))) {
        problems.push(
          `${manifest.name}: engines.node "${range}" allows Node versions the root's "${rootRange}" does not: narrow it.`,
        );
      }
      const deps = { ...manifest.peerDependencies, ...manifest.dependencies };
      for (const name of Object.keys(deps)) {
        const dep = installed(dir, name);
        const needs = dep?.engines?.node;
        if (needs === undefined || semver.validRange(needs) === null) continue;
        if (!semver.subset(range, needs)) {
          problems.push(
            `${manifest.name}: engines.node "${range}" allows Node versions ${name}@${dep?.version} does not support (its engines.node: "${needs}"): narrow ${manifest.name}'s engines.node to what both allow, and say why in docs/development.md.`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("the README states the root's minimum and the Node lines .ci/run tests", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const stated =
      /^Runs on Node\.js (\d+\.\d+) and later: CI tests it on Node ([\d, and]+) \(/m.exec(readme);
    expect(
      stated,
      "README.md: the line 'Runs on Node.js <min> and later: CI tests it on Node …'",
    ).not.toBeNull();
    const minimum = semver.minVersion(String(rootRange));
    expect(stated?.[1]).toBe(`${minimum?.major}.${minimum?.minor}`);

    const ci = readFileSync(join(root, ".ci/run"), "utf8");
    const lanes = /^node scripts\/ci-lanes\.mjs main((?: \d+)+)$/m.exec(ci);
    expect(lanes, ".ci/run: the line 'node scripts/ci-lanes.mjs main <lines>'").not.toBeNull();
    // The main lane runs on the machine's Node, the minimum's line on CI.
    const tested = [String(minimum?.major), ...String(lanes?.[1]).trim().split(" ")];
    expect(stated?.[2]?.split(/, | and /)).toEqual(tested);
  });
});
