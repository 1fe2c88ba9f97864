// JSON as the provider's senders write it: JSON.parse, else the repairs its documented samples
// need; what is still not JSON described without V8's message, which quotes the body itself.
import { hideStack, restoreStack } from "./stackless.js";

/**
 * JSON.parse, then repairs no valid JSON needs: a comma before a closing bracket dropped (the
 * provider's samples carry one), a string that runs into a line break ended there (the smart-link
 * visit's `"browser_version": "23.3.1,`). @throws the first parse's SyntaxError
 */
export function parseLenientJson(text: string): unknown {
  // A SyntaxError here becomes an invalid_json refusal: its stack is never read.
  const limit = hideStack();
  try {
    return JSON.parse(text);
  } catch (error) {
    const repaired = repair(text);
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

// Outside strings, a comma before a closing brace or bracket; a string cut off by a line break,
// with the comma just before the break (the separator) as its group.
const REPAIRABLE = /"(?:[^"\\\r\n]|\\[\s\S])*?(?:"|(,?)(?=[\r\n]))|,(?=[ \t\r\n]*[}\]])/g;

function repair(text: string): string {
  return text.replace(REPAIRABLE, (match: string, comma: string | undefined) => {
    if (match === ",") return "";
    return comma === undefined ? match : `${match.slice(0, match.length - comma.length)}"${comma}`;
  });
}

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// A string's opening quote and as much of it as is JSON: what stops it is its end or the fault.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it stops at.
const STRING_SO_FAR = /"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*/y;
const LITERALS = ["true", "false", "null"];

/** Where `text` stops being JSON (a trailing comma allowed), `text.length` at its end, or -1. */
export function jsonErrorOffset(text: string): number {
  const n = text.length;
  const open: number[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < n && SPACE.has(text.charCodeAt(i))) i++;
  };
  /** At a `"`: past the string, or false with `i` on the offending character. */
  const string = (): boolean => {
    STRING_SO_FAR.lastIndex = i;
    STRING_SO_FAR.test(text);
    i = STRING_SO_FAR.lastIndex;
    if (text.charCodeAt(i) === 0x22) {
      i++;
      return true;
    }
    // A bad escape: the character after the backslash (after `\u`, the first hex digit).
    if (text.charCodeAt(i) === 0x5c) i = Math.min(i + (text.charCodeAt(i + 1) === 0x75 ? 2 : 1), n);
    return false;
  };
  /** A member's key and colon; false with `i` on the offending character. */
  const key = (): boolean => {
    skipSpace();
    if (text.charCodeAt(i) !== 0x22 || !string()) return false;
    skipSpace();
    if (text.charCodeAt(i) !== 0x3a) return false;
    i++;
    return true;
  };
  const close = (c: number) => (c === 0x7b ? 0x7d : 0x5d);

  value: for (;;) {
    skipSpace();
    if (i >= n) return n;
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      i++;
      skipSpace();
      if (text.charCodeAt(i) === close(c)) i++;
      else {
        open.push(c);
        if (c === 0x7b && !key()) return Math.min(i, n);
        continue;
      }
    } else if (c === 0x22) {
      if (!string()) return Math.min(i, n);
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) return Math.min(i + 1, n);
      i = NUMBER.lastIndex;
    } else {
      const literal = LITERALS.find((word) => word.charCodeAt(0) === c);
      if (literal === undefined) return i;
      for (let k = 0; k < literal.length; k++, i++) {
        if (text.charCodeAt(i) !== literal.charCodeAt(k)) return Math.min(i, n);
      }
    }
    // After a value: a comma, a closing bracket, or the end.
    for (;;) {
      skipSpace();
      const top = open.at(-1);
      if (top === undefined) return i >= n ? -1 : i;
      if (i >= n) return n;
      const next = text.charCodeAt(i);
      if (next === close(top)) {
        open.pop();
        i++;
        continue;
      }
      if (next !== 0x2c) return i;
      i++;
      skipSpace();
      if (text.charCodeAt(i) === close(top)) continue; // a trailing comma, repaired
      if (top === 0x7b && !key()) return Math.min(i, n);
      continue value;
    }
  }
}

/** Where and what, in words and code points only: "unexpected U+001B at line 1, column 5 …". */
export function describeJsonError(text: string): string {
  const at = jsonErrorOffset(text);
  if (at < 0 || at >= text.length) return "the body ends before the JSON is complete";
  const before = text.slice(0, at);
  const line = before.split("\n").length;
  const column = at - before.lastIndexOf("\n");
  const code = text.codePointAt(at) ?? 0;
  // A printable ASCII character is shown as itself; anything else by its code point.
  const shown =
    code > 0x20 && code < 0x7f && code !== 0x27
      ? `'${String.fromCharCode(code)}'`
      : `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  return `unexpected ${shown} at line ${line}, column ${column} (character ${at + 1})`;
}
