import "reflect-metadata";
import { Controller, Get, Module } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import { ReportkitModule } from "@reportkit/nestjs";
import { ReportLog, ReportsService } from "./reports.service.js";

@Controller("health")
class HealthController {
  @Get()
  health() {
    return { ok: true };
  }
}

@Module({
  // POST /webhooks, the secret from REPORTKIT_SECRET; its handlers are ReportsService's methods.
  imports: [ReportkitModule.forRoot({ path: "/webhooks" })],
  controllers: [HealthController],
  providers: [ReportLog, ReportsService],
})
class AppModule {}

const app = await NestFactory.create(AppModule);
app.enableShutdownHooks(); // SIGTERM: reports in flight finish, new ones get 503 (retried)
await app.listen(Number(process.env.PORT ?? 3000), "127.0.0.1");
console.log(`listening on ${(await app.getUrl()).replace("[::1]", "127.0.0.1")}/webhooks`);
