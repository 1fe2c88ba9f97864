// A NestJS 11 app with two reportkit receivers, bundled by nestjs11.test.ts with
// @reportkit/nestjs's sources; @nestjs/* stay imports, so they resolve to this directory's
// NestJS 11. The platform comes from PLATFORM; the first delivery fails when FAIL_FIRST=1.
import "reflect-metadata";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { type CanActivate, Controller, Get, Inject, Injectable, Module } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import { ExpressAdapter } from "@nestjs/platform-express";
import { FastifyAdapter } from "@nestjs/platform-fastify";
import {
  type CallReport,
  type DeliveryReport,
  OnCall,
  OnDelivery,
  ReportkitModule,
} from "@reportkit/nestjs";

@Injectable()
class Failures {
  left = process.env.FAIL_FIRST === "1" ? 1 : 0;
}

@Injectable()
class Reports {
  constructor(@Inject(Failures) private readonly failures: Failures) {}

  @OnDelivery()
  delivered(report: DeliveryReport) {
    if (this.failures.left-- > 0) throw new Error("database down");
    console.log(`delivery ${report.id} at ${report.deliveredAt?.toISOString()}`);
  }

  @OnCall()
  called(report: CallReport) {
    console.log(`call ${report.mid}: ${report.duration}s`);
  }

  @OnDelivery("b")
  deliveredToB(report: DeliveryReport) {
    console.log(`b delivery ${report.id}`);
  }
}

@Controller("orders")
class OrdersController {
  @Get()
  list() {
    return [];
  }
}

class RefuseAll implements CanActivate {
  canActivate() {
    return false;
  }
}

@Module({
  imports: [
    ReportkitModule.forRoot({ secret: process.env.TOKEN_A, logger: false }),
    ReportkitModule.forRootAsync({
      useFactory: async () => ({ name: "b", path: "/webhooks/b", secret: process.env.TOKEN_B }),
    }),
  ],
  controllers: [OrdersController],
  providers: [Failures, Reports],
})
class AppModule {}

const adapter = process.env.PLATFORM === "fastify" ? new FastifyAdapter() : new ExpressAdapter();
const app = await NestFactory.create(AppModule, adapter, { logger: false });
app.useGlobalGuards(new RefuseAll());
await app.listen(0, "127.0.0.1");
const version = createRequire(import.meta.url)("@nestjs/core/package.json").version;
const { port } = app.getHttpServer().address() as AddressInfo;
console.log(`nest ${version} listening on http://127.0.0.1:${port}`);
