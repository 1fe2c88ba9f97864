// @reportkit/client/internal: what reportkit's own packages share with the client rather than
// copy (the CLI's `replay` pushes reports as `reconcile()` does, and redacts as the client
// does). Not part of the user API: the main entry (index.ts) is.
export {
  isHeaderName,
  type PusherOptions,
  type PushRequest,
  type PushVerdict,
  type ReportPusher,
  reportPusher,
} from "./push-report.js";
export { redactor } from "./redact.js";
