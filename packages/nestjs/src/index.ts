export {
  type CallReport,
  type DeliveryReport,
  type ErrorCode,
  type Report,
  type ReportContext,
  ReportkitError,
} from "@reportkit/core";
export { OnCall, OnDelivery } from "./decorators.js";
export type { ReportkitModuleOptions } from "./module-options.js";
export { ReceiverMount as ReportkitReceiver } from "./receiver-mount.js";
export { ReportkitModule } from "./reportkit.module.js";
