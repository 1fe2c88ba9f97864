import type { webhookReceiver as expressReceiver } from "@reportkit/express";
import type { webhookReceiver as fastifyReceiver } from "@reportkit/fastify";

/** The provider of the app's `PlatformAdapters` (the module's own, not exported). */
export const PLATFORM_ADAPTERS = Symbol("reportkit:platform-adapters");

/** The Nest platforms the module mounts on, each with the reportkit adapter it mounts with. */
export type Platform = "express" | "fastify";

const ADAPTER = {
  express: { package: "@reportkit/express", nest: "@nestjs/platform-express" },
  fastify: { package: "@reportkit/fastify", nest: "@nestjs/platform-fastify" },
} as const;

/** The reportkit adapters loaded for the app: the one of its platform, or a reason why not. */
export interface PlatformAdapters {
  express?: typeof expressReceiver;
  fastify?: typeof fastifyReceiver;
  /** Why a platform's adapter could not be loaded, by platform. */
  failures: Partial<Record<Platform, unknown>>;
}

export function isPlatform(type: string): type is Platform {
  return type === "express" || type === "fastify";
}

/**
 * Loads the reportkit adapter of the app's platform (both are optional peer dependencies, so
 * that an Express app installs no Fastify). `platform` is undefined when the HTTP adapter is
 * not known yet (a testing module compiled before `createNestApplication`): then every adapter
 * that is installed is loaded, and the mount picks.
 */
export async function loadPlatformAdapters(
  platform: string | undefined,
): Promise<PlatformAdapters> {
  const adapters: PlatformAdapters = { failures: {} };
  const wanted: Platform[] =
    platform === undefined ? ["express", "fastify"] : isPlatform(platform) ? [platform] : [];
  await Promise.all(
    wanted.map(async (name) => {
      try {
        // Literal specifiers, so that bundlers and `tsc` see both.
        if (name === "express") {
          adapters.express = (await import("@reportkit/express")).webhookReceiver;
        } else {
          adapters.fastify = (await import("@reportkit/fastify")).webhookReceiver;
        }
      } catch (error) {
        adapters.failures[name] = error;
      }
    }),
  );
  return adapters;
}

/**
 * Why the adapter of `platform` is missing, as an error to throw at start-up: a clear one when
 * the package is not installed, the loader's own error otherwise (a broken install, say).
 */
export function adapterFailure(platform: Platform, failure: unknown): unknown {
  const { package: name, nest } = ADAPTER[platform];
  if (failure === undefined || isNotInstalled(failure, name)) {
    return new Error(
      `reportkit: this NestJS app runs on ${nest}, and ReportkitModule mounts its receiver there with ${name}, which is not installed. Install it beside @reportkit/nestjs: npm i ${name}`,
    );
  }
  return failure;
}

/** Node's "Cannot find package '<name>'" (ESM) or "Cannot find module '<name>'" (CommonJS). */
function isNotInstalled(error: unknown, name: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    error.message.includes(`'${name}'`)
  );
}
