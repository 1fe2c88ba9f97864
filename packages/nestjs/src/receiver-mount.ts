import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnModuleInit,
} from "@nestjs/common";
import { DiscoveryService, HttpAdapterHost } from "@nestjs/core";
import type { CloseOptions, HealthReport } from "@reportkit/core";
import type { FastifyReportkit } from "@reportkit/fastify";
import { discoverHandlers } from "./discover-handlers.js";
import { REPORTKIT_MODULE_OPTIONS, type ReportkitModuleOptions } from "./module-options.js";
import {
  adapterFailure,
  isPlatform,
  PLATFORM_ADAPTERS,
  type PlatformAdapters,
} from "./platform-adapters.js";

/** What the mount attaches handlers to and closes: the Express handler or `fastify.reportkit`. */
interface Target {
  onDelivery(handler: never): unknown;
  onCall(handler: never): unknown;
  onUnsubscribe(handler: never): unknown;
  onEvent(handler: never): unknown;
  health(): Promise<HealthReport>;
  close(options?: CloseOptions): Promise<void>;
}

/** The parts of Nest's HTTP adapter the mount uses, on either platform. */
interface PlatformAdapter {
  getType(): string;
  getInstance(): unknown;
}

interface FastifyLike {
  register(plugin: unknown, options?: unknown): unknown;
  reportkit: FastifyReportkit;
}

/**
 * Puts the receiver on the platform's own router (the Express app, the Fastify instance) as
 * soon as Nest has the HTTP adapter: before Nest's body parsers, so the body reaches core
 * unread, and outside Nest's controllers, so no guard, pipe, interceptor or exception filter
 * of the app changes a reply. Then attaches the `@OnDelivery` / `@OnCall` methods Nest's
 * DiscoveryService finds; until then reports get 503 `no_handler`. Injected as
 * `ReportkitReceiver`, it gives the receiver's `health()` and `close()`.
 *
 * @example
 * @Controller()
 * class HealthController {
 *   constructor(@Inject(ReportkitReceiver) private readonly reportkit: ReportkitReceiver) {}
 *   @Get("healthz") health() { return this.reportkit.health(); }
 * }
 */
export class ReceiverMount implements OnModuleInit, BeforeApplicationShutdown {
  private target: Target | undefined;
  private failure: unknown;
  private handlers: ReturnType<typeof discoverHandlers> | undefined;
  private readonly adapters: PlatformAdapters;

  constructor(
    private readonly options: ReportkitModuleOptions,
    adapterHost: HttpAdapterHost,
    private readonly discovery: DiscoveryService,
    // `object` here: the declarations users compile against name no optional peer's types.
    adapters: object,
  ) {
    this.adapters = adapters as PlatformAdapters;
    // Now (Nest's factory) or once the testing module's createNestApplication() sets it: in both
    // cases before app.init() adds the body parsers.
    adapterHost.init$.subscribe(() => {
      try {
        this.mount(adapterHost.httpAdapter as unknown as PlatformAdapter);
      } catch (error) {
        this.failure = error; // thrown by onModuleInit, where app.init() reports it
      }
    });
  }

  private mount(adapter: PlatformAdapter): void {
    const { path = "/webhooks", name: _name, ...rest } = this.options;
    if (typeof path !== "string" || !path.startsWith("/")) {
      throw new TypeError(
        `reportkit: \`path\` must be a path starting with "/", such as "/webhooks", got ${JSON.stringify(path)}.`,
      );
    }
    const options = { logger: new Logger("Reportkit"), ...rest };
    const below = path.endsWith("/*");
    const type = adapter.getType();
    if (isPlatform(type) && this.adapters[type] === undefined) {
      throw adapterFailure(type, this.adapters.failures[type]);
    }
    const { express: expressReceiver, fastify: fastifyReceiver } = this.adapters;
    if (type === "express" && expressReceiver !== undefined) {
      const app = adapter.getInstance() as { use(...args: unknown[]): unknown };
      if (below) {
        const handler = expressReceiver(options);
        app.use(path.slice(0, -2) || "/", handler);
        this.target = handler;
      } else {
        const handler = expressReceiver({ ...options, path });
        app.use(handler);
        this.target = handler;
      }
    } else if (type === "fastify" && fastifyReceiver !== undefined) {
      // A scope of its own: one `reportkit` decoration per receiver, and its body parsers.
      (adapter.getInstance() as FastifyLike).register(async (scope: FastifyLike) => {
        await scope.register(fastifyReceiver, { ...options, path });
        this.target = scope.reportkit;
        this.attach();
      });
    } else {
      throw new Error(
        `reportkit: ReportkitModule runs on @nestjs/platform-express and @nestjs/platform-fastify; this app's HTTP adapter is "${type}".`,
      );
    }
  }

  onModuleInit(): void {
    if (this.failure !== undefined) throw this.failure;
    this.handlers = discoverHandlers(this.discovery, this.options.name ?? "default");
    this.attach();
  }

  /** Once both the route (Fastify: when its plugin loads) and the handlers are known. */
  private attach(): void {
    const { target, handlers } = this;
    if (target === undefined || handlers === undefined) return;
    this.handlers = undefined;
    for (const kind of Object.keys(handlers) as (keyof typeof handlers)[]) {
      const found = handlers[kind];
      if (found !== undefined) target[kind](found.handler as never);
    }
  }

  /** A round trip to each store, journal and queue the receiver uses (see `receiver.health()`). */
  health(): Promise<HealthReport> {
    if (this.target !== undefined) return this.target.health();
    const checks = { receiver: { ok: false, message: "not mounted yet: the app has not started" } };
    return Promise.resolve({ ok: false, checks });
  }

  /**
   * From now on reports get 503 `shutting_down`; those in flight finish first (up to
   * `timeoutMs`). `app.close()` calls it by itself.
   */
  async close(options?: CloseOptions): Promise<void> {
    await this.target?.close(options);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.close();
  }
}

// Decorated by calls rather than by syntax, so that this source compiles the same whatever the
// app's decorator settings (tsx and vitest compile it from source in this repository).
Injectable()(ReceiverMount);
for (const [index, token] of [
  REPORTKIT_MODULE_OPTIONS,
  HttpAdapterHost,
  DiscoveryService,
  PLATFORM_ADAPTERS,
].entries()) {
  Inject(token)(ReceiverMount, undefined, index);
}
