import { defineConfig } from "vitest/config";

// Tests import the workspace packages through their "source" export condition, so they run
// against src/ without a build. No "module" condition: OpenTelemetry's "module" export is an
// ESM build with extension-less imports, which only a bundler reads, not Node.
const conditions = ["source", "node", "development|production"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["source"] } },
  test: {
    include: ["packages/*/src/**/*.test.ts", "test/**/*.test.ts", "examples/*/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    // The JSON report scripts/test-counts.mjs counts; each CI lane on another Node
    // (scripts/test-node.mjs) names its own, so it cannot count another lane's.
    reporters: [
      "default",
      ["json", { outputFile: process.env.REPORTKIT_VITEST_REPORT || ".vitest-report.json" }],
    ],
    typecheck: {
      enabled: true,
      include: ["packages/*/src/**/*.test-d.ts", "test/**/*.test-d.ts"],
      tsconfig: "tsconfig.check.json",
    },
    // Tests spawn the CLI, Redis, Chromium and workerd; on a loaded 2-core CI machine some take
    // 10-15 s (measured under `stress --cpu 2`), so a test's own bound is wide, and the waits
    // inside tests (10-15 s) give up first, with a message saying what they waited for.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
