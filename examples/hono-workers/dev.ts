// Runs worker.ts locally in workerd, Cloudflare's Workers runtime, through miniflare: bundled
// with esbuild, REPORTKIT_SECRET passed in as a binding, served on PORT.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";

const bundle = await build({
  entryPoints: [fileURLToPath(new URL("./worker.ts", import.meta.url))],
  bundle: true,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  // "source" runs the workspace packages from their TypeScript; harmless elsewhere.
  conditions: ["source", "workerd", "worker", "import"],
  write: false,
});

if (!process.env.REPORTKIT_SECRET) {
  console.warn("REPORTKIT_SECRET is not set: every report fails (500) until it is.");
}

const mf = new Miniflare({
  modules: true,
  script: bundle.outputFiles[0]?.text ?? "",
  compatibilityDate: "2026-04-01",
  bindings: { REPORTKIT_SECRET: process.env.REPORTKIT_SECRET ?? "" },
  host: "127.0.0.1",
  port: Number(process.env.PORT ?? 8787),
});
const url = await mf.ready;
console.log(`listening on ${url.origin}/webhooks`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    mf.dispose().finally(() => process.exit(0));
  });
}
