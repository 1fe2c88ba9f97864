import { hideStack, restoreStack } from "../reply/stackless.js";

/**
 * JSON.parse, plus one repair on failure: a comma before a closing brace or bracket is
 * dropped. The provider's documented samples carry one, and a report lost to a stray comma
 * is lost for good. Valid JSON never reaches the repair, so the hot path is plain JSON.parse.
 * @throws SyntaxError from the first parse when the repaired text is not JSON either.
 */
export function parseLenientJson(text: string): unknown {
  // A SyntaxError here becomes an invalid_json refusal: its stack is never read.
  const limit = hideStack();
  try {
    return JSON.parse(text);
  } catch (error) {
    const repaired = dropTrailingCommas(text);
    if (repaired === text) throw error;
    try {
      return JSON.parse(repaired);
    } catch {
      throw error;
    }
  } finally {
    restoreStack(limit);
  }
}

function dropTrailingCommas(text: string): string {
  let out = "";
  let inString = false;
  let pendingComma = -1;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      pendingComma = -1;
    } else if (c === 0x2c) {
      pendingComma = i;
    } else if (c === 0x7d || c === 0x5d) {
      if (pendingComma >= 0) {
        out += text.slice(from, pendingComma);
        from = pendingComma + 1;
      }
      pendingComma = -1;
    } else if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) {
      pendingComma = -1;
    }
  }
  return out + text.slice(from);
}
