// Types for scripts/publishable-packages.mjs (a plain .mjs so the pack scripts run with node
// alone), for the packaging tests in test/packaging/.
export interface PublishablePackage {
  /** The directory name under packages/, e.g. "express". */
  name: string;
  /** The package's directory. */
  dir: string;
  /** Its package.json. */
  pkg: { name: string; version: string } & Record<string, unknown>;
}
export function publishablePackages(root: string): PublishablePackage[];
