// A NestJS app with the reportkit module, on the Express or the Fastify platform, listening on
// a free port, for the conformance table and the module's own tests. The app has what real
// apps have on every route: a global guard that refuses everything, a pipe and an interceptor
// that change everything, and an exception filter that turns every error into a 418; none of
// them may change a reportkit reply.
import "reflect-metadata";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import {
  type ArgumentsHost,
  type CallHandler,
  type CanActivate,
  Catch,
  type DynamicModule,
  type ExceptionFilter,
  type INestApplication,
  Injectable,
  Module,
  type NestInterceptor,
  type PipeTransform,
  type Type,
} from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import { ExpressAdapter } from "@nestjs/platform-express";
import { FastifyAdapter } from "@nestjs/platform-fastify";
import express from "express";
import { map } from "rxjs";

export type Platform = "express" | "fastify";

/** The header by which the test stage makes the request body fail mid-way (conformance). */
export const FAULT_HEADER = "x-conformance-fault";

@Injectable()
export class RefuseAll implements CanActivate {
  canActivate(): boolean {
    return false;
  }
}

@Injectable()
class BreakEveryValue implements PipeTransform {
  transform(): never {
    throw new Error("global pipe: refused");
  }
}

@Injectable()
class WrapEverything implements NestInterceptor {
  intercept(_context: unknown, next: CallHandler) {
    return next.handle().pipe(map((data) => ({ wrapped: data })));
  }
}

@Catch()
class Teapot implements ExceptionFilter {
  catch(_error: unknown, host: ArgumentsHost) {
    const response = host.switchToHttp().getResponse();
    if (typeof response.code === "function") response.code(418).send({ teapot: true });
    else response.status(418).json({ teapot: true });
  }
}

export interface NestAppOptions {
  platform: Platform;
  /** The app's modules: ReportkitModule.forRoot(...) and providers with decorated methods. */
  imports: (DynamicModule | Type)[];
  providers?: Type[];
  /** The global guard, pipe, interceptor and filter above (default true). */
  hostile?: boolean;
  /** NestFactory's rawBody option. */
  rawBody?: boolean;
}

export interface RunningNestApp {
  app: INestApplication;
  origin: string;
  close(): Promise<void>;
}

/** Builds, initialises and starts the app; a start-up error rejects (the app is closed). */
export async function startNestApp(options: NestAppOptions): Promise<RunningNestApp> {
  @Module({ imports: options.imports, providers: options.providers ?? [] })
  class AppModule {}

  const adapter = options.platform === "express" ? expressAdapter() : fastifyAdapter();
  const app = await NestFactory.create(AppModule, adapter, {
    logger: false,
    abortOnError: false,
    ...(options.rawBody === undefined ? {} : { rawBody: options.rawBody }),
  });
  if (options.hostile !== false) addHostileGlobals(app);
  try {
    await app.listen(0, "127.0.0.1");
  } catch (error) {
    await app.close().catch(() => {});
    throw error;
  }
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, origin: `http://127.0.0.1:${port}`, close: () => app.close() };
}

/** What would change every reply of a Nest route: a guard, a pipe, an interceptor, a filter. */
function addHostileGlobals(app: INestApplication): void {
  app.useGlobalGuards(new RefuseAll());
  app.useGlobalPipes(new BreakEveryValue());
  app.useGlobalInterceptors(new WrapEverything());
  app.useGlobalFilters(new Teapot());
}

/** Test stage (Express): the body stream fails where it would have ended. */
function expressAdapter(): ExpressAdapter {
  const instance = express();
  instance.use((req, _res, next) => {
    if (req.headers[FAULT_HEADER] !== undefined) {
      const emit = req.emit;
      req.emit = function (this: typeof req, event: string | symbol, ...args: unknown[]) {
        if (event !== "end") return emit.call(this, event, ...args);
        return emit.call(this, "error", new Error("connection reset mid-body"));
      } as typeof req.emit;
    }
    next();
  });
  return new ExpressAdapter(instance);
}

/** Test stage (Fastify): a preParsing hook of the host's whose stream fails after one chunk. */
function fastifyAdapter(): FastifyAdapter {
  const adapter = new FastifyAdapter();
  adapter.getInstance().addHook("preParsing", async (request, _reply, payload) => {
    if (request.headers[FAULT_HEADER] === undefined) return payload;
    const chunks = payload[Symbol.asyncIterator]();
    return Readable.from(
      (async function* () {
        const first = await chunks.next();
        if (first.done !== true) yield first.value;
        throw new Error("connection reset mid-body");
      })(),
    );
  });
  return adapter;
}
