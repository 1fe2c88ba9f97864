// Types for scripts/node-binary.mjs (a plain .mjs so CI runs it with node alone), for its test
// in test/scripts/.
export function nodeCacheDir(env?: NodeJS.ProcessEnv): string;
export function nodePackageName(platform?: string, arch?: string): string;
export function nodeBinary(
  line: string,
  options?: { cacheDir?: string; env?: NodeJS.ProcessEnv; log?: (line: string) => void },
): { version: string; path: string; binDir: string };
export function redactCredentials(text: string): string;
