export {
  type CallReport,
  type DeliveryReport,
  type ErrorCode,
  type EventReport,
  type Report,
  type ReportContext,
  ReportkitError,
  RetryLater,
  type UnsubscribeReport,
} from "@reportkit/core";
export { OnCall, OnDelivery, OnEvent, OnUnsubscribe } from "./decorators.js";
export type { ReportkitModuleOptions } from "./module-options.js";
export { ReceiverMount as ReportkitReceiver } from "./receiver-mount.js";
export { ReportkitModule } from "./reportkit.module.js";
