import { Module } from "@nestjs/common";
import { DiscoveryModule, HttpAdapterHost } from "@nestjs/core";
import {
  type REPORTKIT_ASYNC_OPTIONS_TYPE,
  type REPORTKIT_OPTIONS_TYPE,
  ReportkitConfigurableModule,
} from "./module-options.js";
import { loadPlatformAdapters, PLATFORM_ADAPTERS } from "./platform-adapters.js";
import { ReceiverMount } from "./receiver-mount.js";

/**
 * The reportkit receiver in a NestJS app, on the Express or the Fastify platform. Each
 * `forRoot` / `forRootAsync` is one receiver on its own path (default /webhooks), with its
 * secret (default REPORTKIT_SECRET); its handlers are the `@OnDelivery()` / `@OnCall()` methods of
 * the app's providers.
 *
 * @example
 * @Module({ imports: [ReportkitModule.forRoot({ path: "/webhooks" })], providers: [Reports] })
 * export class AppModule {}
 *
 * ReportkitModule.forRootAsync({
 *   imports: [ConfigModule],
 *   inject: [ConfigService],
 *   useFactory: (config: ConfigService) => ({ secret: config.getOrThrow("DLR_SECRET") }),
 * });
 */
export class ReportkitModule extends ReportkitConfigurableModule {
  /** One receiver, options given here (all optional). */
  static override forRoot(options: typeof REPORTKIT_OPTIONS_TYPE = {}) {
    // biome-ignore lint/complexity/noThisInStatic: the definition's module must be this class
    return super.forRoot(options);
  }

  /** One receiver, options from a factory with injected dependencies (ConfigService, say). */
  static override forRootAsync(options: typeof REPORTKIT_ASYNC_OPTIONS_TYPE) {
    // biome-ignore lint/complexity/noThisInStatic: the definition's module must be this class
    return super.forRootAsync(options);
  }
}

// Decorated by a call, as ReceiverMount is: the same whatever the app's decorator settings.
Module({
  imports: [DiscoveryModule],
  providers: [
    ReceiverMount,
    {
      // Before the mount is made: Nest awaits an async factory. NestFactory has the HTTP adapter
      // by then, so only its platform's adapter is loaded; a testing module gets it later.
      provide: PLATFORM_ADAPTERS,
      inject: [HttpAdapterHost],
      useFactory: (host: HttpAdapterHost) =>
        loadPlatformAdapters((host.httpAdapter as { getType(): string } | undefined)?.getType()),
    },
  ],
  exports: [ReceiverMount],
})(ReportkitModule);
