// A NestJS app as a newcomer writes it, for metadata.test.ts: the handler provider takes its
// dependency by type alone (REPORTS=by-type), which only works when the compiler emits decorator
// metadata, or by token (REPORTS=by-token, `@Inject(Inbox)`), which works with any compiler.
// Run under tsx (no metadata) and compiled by TypeScript with emitDecoratorMetadata; it prints
// "listening on <url>", then "stored <id>" for each delivery report its handler stores.
import "reflect-metadata";
import { Inject, Injectable, Module } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import { type DeliveryReport, OnDelivery, ReportkitModule } from "@reportkit/nestjs";

@Injectable()
export class Inbox {
  readonly ids: string[] = [];
}

@Injectable()
export class ReportsByType {
  constructor(private readonly inbox: Inbox) {}

  @OnDelivery()
  delivered(report: DeliveryReport) {
    this.inbox.ids.push(report.id);
    console.log(`stored ${report.id}`);
  }
}

@Injectable()
export class ReportsByToken {
  constructor(@Inject(Inbox) private readonly inbox: Inbox) {}

  @OnDelivery()
  delivered(report: DeliveryReport) {
    this.inbox.ids.push(report.id);
    console.log(`stored ${report.id}`);
  }
}

@Module({
  imports: [ReportkitModule.forRoot()],
  providers: [Inbox, process.env.REPORTS === "by-token" ? ReportsByToken : ReportsByType],
})
class AppModule {}

const app = await NestFactory.create(AppModule, { logger: ["error", "warn"] });
await app.listen(0, "127.0.0.1");
console.log(`listening on ${await app.getUrl()}`);
