// What the packages' package.json files promise their users' installs: no type package at run
// time, no framework or database driver a user does not need (they are optional peers,
// loaded by the code that needs them), and a CLI bin that exists before anything is built.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { publishablePackages } from "../../scripts/publishable-packages.mjs";

const root = join(import.meta.dirname, "../..");
const packages = new Map(publishablePackages(root).map((p) => [p.pkg.name, p]));

interface Manifest {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
  bin?: Record<string, string>;
}

function manifest(name: string): Manifest {
  const found = packages.get(name);
  if (found === undefined) throw new Error(`${name} is not a publishable package`);
  return found.pkg as Manifest;
}

/** Whether `dependency` is an optional peer of `name`, and not one of its dependencies. */
function optionalPeer(name: string, dependency: string): boolean {
  const pkg = manifest(name);
  return (
    pkg.peerDependencies?.[dependency] !== undefined &&
    pkg.peerDependenciesMeta?.[dependency]?.optional === true &&
    pkg.dependencies?.[dependency] === undefined
  );
}

describe("the publishable packages' manifests", () => {
  it("no package installs a @types package at run time", () => {
    const typesAtRunTime = [...packages.values()].flatMap(({ pkg }) =>
      Object.keys((pkg as Manifest).dependencies ?? {})
        .filter((dependency) => dependency.startsWith("@types/"))
        .map((dependency) => `${pkg.name}: ${dependency}`),
    );
    expect(typesAtRunTime).toEqual([]);
  });

  it("@types/pg is an optional peer of @reportkit/postgres and @reportkit/pg-boss (their .d.ts import pg), built with them", () => {
    for (const name of ["@reportkit/postgres", "@reportkit/pg-boss"]) {
      expect(optionalPeer(name, "@types/pg"), name).toBe(true);
      expect(manifest(name).devDependencies?.["@types/pg"], name).toBeDefined();
    }
  });

  it("@reportkit/nestjs: the platform adapters are optional peers, so an Express app gets no Fastify", () => {
    for (const adapter of [
      "@reportkit/express",
      "@reportkit/fastify",
      "@nestjs/platform-express",
      "@nestjs/platform-fastify",
    ]) {
      expect(optionalPeer("@reportkit/nestjs", adapter), adapter).toBe(true);
    }
  });

  it("@reportkit/cli: the stores and the queue are optional peers, so the sandbox needs no driver", () => {
    for (const store of [
      "@reportkit/postgres",
      "@reportkit/redis",
      "@reportkit/bullmq",
      "@reportkit/pg-boss",
    ]) {
      expect(optionalPeer("@reportkit/cli", store), store).toBe(true);
    }
    // chart.js: what `reportkit insights`'s page draws with, served by the CLI (no CDN).
    expect(Object.keys(manifest("@reportkit/cli").dependencies ?? {}).sort()).toEqual([
      "@reportkit/client",
      "@reportkit/sandbox",
      "@reportkit/wire",
      "chart.js",
      "commander",
    ]);
  });

  it("@reportkit/cli's bin is a committed file, so a fresh install links it before any build", () => {
    const bin = manifest("@reportkit/cli").bin?.reportkit ?? "";
    const path = join("packages/cli", bin);
    const tracked = execFileSync("git", ["ls-files", "--", path], { cwd: root, encoding: "utf8" });
    expect(tracked.trim()).toBe(path);
  });
});
