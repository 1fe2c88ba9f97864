import { ConfigurableModuleBuilder } from "@nestjs/common";
import type { ComposedTemplate, ReceiverOptions } from "@reportkit/core";

/** `ReportkitModule.forRoot(options)`, or what `forRootAsync`'s `useFactory` returns. */
export type ReportkitModuleOptions = ReceiverOptions<ComposedTemplate | undefined> & {
  /**
   * The route, as the full path of the request (Nest's global prefix does not apply: the route
   * is the platform's, not a controller's). Default "/webhooks". Ending in "/*": that path and
   * every path below it (a composed template's path placeholders).
   */
  path?: string;
  /**
   * Which `@OnDelivery(name)` / `@OnCall(name)` methods this receiver calls, when an app has
   * several (one per provider account, say). Default "default", what `@OnDelivery()` names.
   */
  name?: string;
};

export const {
  ConfigurableModuleClass: ReportkitConfigurableModule,
  MODULE_OPTIONS_TOKEN: REPORTKIT_MODULE_OPTIONS,
  OPTIONS_TYPE: REPORTKIT_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: REPORTKIT_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<ReportkitModuleOptions>({ moduleName: "Reportkit" })
  .setClassMethodName("forRoot")
  .build();
