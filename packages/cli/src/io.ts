/** Where a command writes, and the environment it reads: injectable for embedding and tests. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  /** Resolves when the user asks a long-running command to stop (Ctrl-C, SIGTERM). */
  stopSignal: () => Promise<string>;
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    stopSignal: () =>
      new Promise((resolve) => {
        const stop = (signal: string) => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          resolve(signal);
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      }),
  };
}

/** A failure the CLI reports as one line, with exit code 1 (or the one given). */
export class CliError extends Error {
  override readonly name = "CliError";

  constructor(
    message: string,
    /** The process's exit code: 1, or 2 for a check that found what it looks for (an alert). */
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
