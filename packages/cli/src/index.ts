export { formatDuration, parseDuration } from "./duration.js";
export { CliError, type CliIo, processIo } from "./io.js";
export { createProgram, main } from "./main.js";
