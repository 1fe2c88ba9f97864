import { invalidForm, type ReportkitError } from "../reply/errors.js";

const LF = 0x0a;
const CR = 0x0d;
const DASH = 0x2d;
const SPACE = 0x20;
const TAB = 0x09;
/** What `lineEnd` returns for a closing delimiter, `--boundary--`. */
const CLOSE = -2;

const utf8 = new TextDecoder();
const encoder = new TextEncoder();
/** Decoders by charset label; only labels TextDecoder accepts are kept, so it stays small. */
const decoders = new Map<string, TextDecoder>([
  ["utf-8", utf8],
  ["utf8", utf8],
]);

/**
 * Reads the text fields of a multipart/form-data body, leniently: the boundary comes from
 * `contentType` (quoted or not); lines may end in CRLF or a bare LF; a preamble before the
 * first boundary and an epilogue after the closing one are ignored; a field name may be
 * quoted (with `\"` escapes, or the `%22` `%0D` `%0A` escapes browsers use) or not. Values
 * are UTF-8 unless the part's own Content-Type names a charset (or a `_charset_` field
 * does). File parts (those with a `filename`) and parts without a name are skipped; of
 * repeated names the last value is kept. The result is a plain object built with
 * Object.fromEntries, so a field named `__proto__` is an own property like any other.
 * @throws ReportkitError `invalid_form` when there is no boundary parameter, no part, or no
 * closing boundary (a truncated body)
 */
export function parseMultipart(
  body: Uint8Array | string,
  contentType: string,
): Record<string, string> {
  const boundary = parameters(contentType, false).get("boundary");
  if (boundary === undefined || boundary === "") {
    throw unreadable("its Content-Type has no boundary parameter.");
  }
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  const delimiter = encoder.encode(`--${boundary}`);

  let [start, next] = nextDelimiter(bytes, delimiter, 0);
  if (start === -1) {
    throw unreadable(
      "no part starts with the boundary its Content-Type names; check the boundary parameter.",
    );
  }
  const parts: Part[] = [];
  while (next !== CLOSE) {
    const partStart = next;
    [start, next] = nextDelimiter(bytes, delimiter, partStart);
    if (start === -1) {
      throw unreadable("its closing boundary was not found; the body may be truncated.");
    }
    const part = readPart(bytes, partStart, start - 1);
    if (part !== undefined) parts.push(part);
  }

  let fallback: string | undefined;
  for (const part of parts) if (part.name === "_charset_") fallback = utf8.decode(part.value);
  const fields: [string, string][] = parts.map((part) => [
    part.name,
    decode(part.value, part.charset ?? fallback),
  ]);
  return Object.fromEntries(fields);
}

interface Part {
  name: string;
  value: Uint8Array;
  charset: string | undefined;
}

function unreadable(reason: string): ReportkitError {
  return invalidForm(reason);
}

/**
 * The next delimiter line at or after `from`: where its `--boundary` starts and where the
 * line after it starts (CLOSE for the closing delimiter), or [-1, -1] if there is none.
 */
function nextDelimiter(bytes: Uint8Array, delimiter: Uint8Array, from: number): [number, number] {
  let start = findDelimiter(bytes, delimiter, from);
  while (start !== -1) {
    const next = lineEnd(bytes, delimiter, start);
    if (next !== -1) return [start, next];
    start = findDelimiter(bytes, delimiter, start + 1);
  }
  return [-1, -1];
}

/** Where the next `--boundary` at the start of a line begins, at or after `from`, or -1. */
function findDelimiter(bytes: Uint8Array, delimiter: Uint8Array, from: number): number {
  if (from === 0 && startsAt(bytes, delimiter, 0)) return 0;
  for (let lf = bytes.indexOf(LF, from === 0 ? 0 : from - 1); lf !== -1; ) {
    if (startsAt(bytes, delimiter, lf + 1)) return lf + 1;
    lf = bytes.indexOf(LF, lf + 1);
  }
  return -1;
}

function startsAt(bytes: Uint8Array, delimiter: Uint8Array, at: number): boolean {
  if (at + delimiter.length > bytes.length) return false;
  for (let i = 0; i < delimiter.length; i++) if (bytes[at + i] !== delimiter[i]) return false;
  return true;
}

/**
 * After a `--boundary` found at `start`: CLOSE if `--` follows, the index after the line
 * break if only transport padding (spaces, tabs) does, or -1 if this is not a delimiter
 * line (`--boundaryX`, or the end of the body).
 */
function lineEnd(bytes: Uint8Array, delimiter: Uint8Array, start: number): number {
  let i = start + delimiter.length;
  if (bytes[i] === DASH && bytes[i + 1] === DASH) return CLOSE;
  while (bytes[i] === SPACE || bytes[i] === TAB) i++;
  if (bytes[i] === CR && bytes[i + 1] === LF) return i + 2;
  if (bytes[i] === LF) return i + 1;
  return -1;
}

/**
 * A part from `start` to `end`, the LF before the next delimiter: its headers up to the
 * first empty line, then its content. Undefined for a file or a part without a name.
 */
function readPart(bytes: Uint8Array, start: number, end: number): Part | undefined {
  const headers: string[] = [];
  let contentStart = end + 1;
  for (let i = start; i <= end; ) {
    const lf = bytes.indexOf(LF, i);
    const lineStop = lf > i && bytes[lf - 1] === CR ? lf - 1 : lf;
    if (lineStop === i) {
      contentStart = lf + 1;
      break;
    }
    const line = utf8.decode(bytes.subarray(i, lineStop));
    const first = line.charCodeAt(0);
    if ((first === SPACE || first === TAB) && headers.length > 0) {
      headers[headers.length - 1] += ` ${line.trim()}`;
    } else {
      headers.push(line);
    }
    i = lf + 1;
  }

  let name: string | undefined;
  let charset: string | undefined;
  for (const header of headers) {
    const colon = header.indexOf(":");
    if (colon === -1) continue;
    const field = header.slice(0, colon).trim().toLowerCase();
    if (field === "content-disposition") {
      const params = parameters(header.slice(colon + 1), true);
      if (params.has("filename") || params.has("filename*")) return undefined;
      name = params.get("name");
    } else if (field === "content-type") {
      charset = parameters(header.slice(colon + 1), false).get("charset");
    }
  }
  if (name === undefined) return undefined;

  let contentEnd = end;
  if (contentEnd > contentStart && bytes[contentEnd - 1] === CR) contentEnd--;
  const value = contentStart < contentEnd ? bytes.subarray(contentStart, contentEnd) : EMPTY;
  return { name, value, charset };
}

const EMPTY = new Uint8Array(0);

/**
 * The parameters after the first `;` of a header value, names lowercased, the first of a
 * repeated name kept. Values may be tokens or quoted strings with `\"` and `\\` escapes;
 * with `html`, a quoted value also has the `%22` `%0D` `%0A` escapes of the HTML form
 * serialisation undone.
 */
function parameters(header: string, html: boolean): Map<string, string> {
  const found = new Map<string, string>();
  const length = header.length;
  let i = header.indexOf(";");
  if (i === -1) return found;
  while (i < length) {
    i++; // past the ';'
    const nameStart = i;
    while (i < length && header[i] !== "=" && header[i] !== ";") i++;
    const name = header.slice(nameStart, i).trim().toLowerCase();
    if (header[i] !== "=") continue;
    i++;
    while (header[i] === " " || header[i] === "\t") i++;
    let value: string;
    if (header[i] === '"') {
      value = "";
      let from = ++i;
      while (i < length && header[i] !== '"') {
        if (header[i] === "\\" && (header[i + 1] === '"' || header[i + 1] === "\\")) {
          value += header.slice(from, i);
          from = i + 1;
          i += 2;
        } else {
          i++;
        }
      }
      value += header.slice(from, i);
      if (html && value.includes("%")) {
        value = value.replace(/%0A/gi, "\n").replace(/%0D/gi, "\r").replace(/%22/g, '"');
      }
      const semicolon = header.indexOf(";", i);
      i = semicolon === -1 ? length : semicolon;
    } else {
      const valueStart = i;
      const semicolon = header.indexOf(";", i);
      i = semicolon === -1 ? length : semicolon;
      value = header.slice(valueStart, i).trim();
    }
    if (name !== "" && !found.has(name)) found.set(name, value);
  }
  return found;
}

function decode(value: Uint8Array, charset: string | undefined): string {
  if (value.length === 0) return "";
  if (charset === undefined) return utf8.decode(value);
  const label = charset.trim().toLowerCase();
  let decoder = decoders.get(label);
  if (decoder === undefined) {
    try {
      decoder = new TextDecoder(label);
    } catch {
      return utf8.decode(value);
    }
    decoders.set(label, decoder);
  }
  return decoder.decode(value);
}
