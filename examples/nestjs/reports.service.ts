import { Inject, Injectable, Logger } from "@nestjs/common";
import { type CallReport, type DeliveryReport, OnCall, OnDelivery } from "@reportkit/nestjs";

/** Stands for your own injectable: a repository, a queue client. */
@Injectable()
export class ReportLog {
  write(line: string): void {
    console.log(line);
  }
}

/**
 * The handlers: methods of an ordinary provider, with its injected dependencies. A method that
 * throws is answered 500, so the provider retries the report later.
 */
@Injectable()
export class ReportsService {
  private readonly logger = new Logger(ReportsService.name);

  // @Inject(...) names the dependency: tsx (which runs this example) emits no decorator
  // metadata. With Nest's CLI (tsc or SWC) the type alone is enough.
  constructor(@Inject(ReportLog) private readonly log: ReportLog) {}

  @OnDelivery()
  delivered(report: DeliveryReport): void {
    const at = report.deliveredAt?.toISOString() ?? "an unknown time";
    this.log.write(`delivery ${report.id} to ${report.mobile}: ${report.status} at ${at}`);
  }

  @OnCall()
  async called(report: CallReport): Promise<void> {
    this.logger.debug(`call report ${report.mid}`);
    this.log.write(
      `call ${report.mid} ${report.from} -> ${report.to}: ${report.status}, ${report.duration}s`,
    );
  }
}
