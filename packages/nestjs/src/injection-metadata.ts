// Nest injects a class's constructor parameters by the types TypeScript records as decorator
// metadata (`design:paramtypes`, with `emitDecoratorMetadata`), or by the tokens `@Inject()`
// names (kept by Nest under `self:paramtypes`). A compiler that emits no metadata (tsx and
// esbuild, vitest) leaves Nest with neither for an undecorated parameter: Nest then calls the
// constructor without it, silently, and the handler finds `this.inbox` undefined on every report.

/** The metadata keys of @nestjs/common's constants (PARAMTYPES_METADATA, SELF_DECLARED_DEPS_METADATA). */
const PARAMTYPES = "design:paramtypes";
const SELF_DECLARED = "self:paramtypes";

type MetadataReader = (key: string, target: object) => unknown;

/**
 * The constructor parameters of `type` (by index) that Nest can neither inject by type nor by
 * token: none when the class has its `design:paramtypes` metadata, or `@Inject()` on each.
 */
export function parametersWithoutToken(type: { readonly length: number }): number[] {
  if (type.length === 0) return [];
  // reflect-metadata (a peer dependency Nest needs too) defines it; without it Nest fails first.
  const read = (Reflect as unknown as { getMetadata?: MetadataReader }).getMetadata;
  if (typeof read !== "function" || read(PARAMTYPES, type) !== undefined) return [];
  const declared = read(SELF_DECLARED, type);
  const injected = new Set(
    Array.isArray(declared) ? declared.map((entry: { index?: unknown }) => entry.index) : [],
  );
  return Array.from({ length: type.length }, (_, index) => index).filter((i) => !injected.has(i));
}

/** What the start-up error says of a handler provider whose parameters Nest cannot inject. */
export function missingMetadataMessage(
  className: string,
  where: string,
  indices: number[],
): string {
  const which =
    indices.length === 1
      ? `parameter ${indices[0]}`
      : `parameters ${indices.slice(0, -1).join(", ")} and ${indices.at(-1)}`;
  return `reportkit: ${className} (whose ${where} handles reports) has constructor ${which} without a type Nest can read: the class has no decorator metadata ("design:paramtypes"), so Nest would construct it without ${indices.length === 1 ? "that dependency" : "those dependencies"} and every report would be answered 500 handler_failed. The code was compiled without emitDecoratorMetadata: tsx and esbuild (and vitest) emit none. Fix it either way: name each dependency with @Inject, e.g. constructor(@Inject(Inbox) private readonly inbox: Inbox), or compile with a compiler that emits the metadata (tsc, or swc with decoratorMetadata) and "emitDecoratorMetadata": true in tsconfig.json.`;
}
