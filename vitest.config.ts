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
    reporters: ["default", ["json", { outputFile: ".vitest-report.json" }]],
    typecheck: {
      enabled: true,
      include: ["packages/*/src/**/*.test-d.ts", "test/**/*.test-d.ts"],
      tsconfig: "tsconfig.check.json",
    },
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
