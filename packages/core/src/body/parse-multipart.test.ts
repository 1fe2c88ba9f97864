import { describe, expect, it } from "vitest";
import type { ReportkitError } from "../reply/errors.js";
import { parseMultipart } from "./parse-multipart.js";

const CT = "multipart/form-data; boundary=XyZ";

/** A body from lines joined by `eol`. */
function body(lines: string[], eol = "\r\n"): string {
  return lines.join(eol);
}

function field(name: string, value: string, boundary = "XyZ"): string[] {
  return [`--${boundary}`, `Content-Disposition: form-data; name="${name}"`, "", value];
}

function refusal(run: () => unknown): ReportkitError {
  try {
    run();
  } catch (error) {
    return error as ReportkitError;
  }
  throw new Error("expected parseMultipart to throw");
}

async function serialise(form: FormData): Promise<[Uint8Array<ArrayBuffer>, string]> {
  const response = new Response(form);
  const contentType = response.headers.get("content-type") ?? "";
  return [new Uint8Array(await response.arrayBuffer()), contentType];
}

describe("parseMultipart", () => {
  it("round-trips a body serialised by the platform's FormData", async () => {
    const form = new FormData();
    form.append("status", "DELIVRD");
    form.append("mobile", "919876543210");
    form.append("text", "héllo wörld ✓ 😀\r\nsecond line\n");
    form.append("empty", "");
    form.append("file", new Blob([new Uint8Array([0xff, 0xfe, 0x0a, 0x2d, 0x2d])]), "a.bin");
    form.append('odd "name"\nhere', "v");
    const [bytes, contentType] = await serialise(form);
    expect(parseMultipart(bytes, contentType)).toEqual({
      status: "DELIVRD",
      mobile: "919876543210",
      text: "héllo wörld ✓ 😀\r\nsecond line\r\n",
      empty: "",
      'odd "name"\r\nhere': "v",
    });
  });

  it("agrees with the platform's own parser on a serialised body", async () => {
    const form = new FormData();
    for (let i = 0; i < 20; i++) form.append(`k${i}`, `value ${i} ${"x".repeat(i * 50)}`);
    const [bytes, contentType] = await serialise(form);
    const parsed = await new Response(bytes, {
      headers: { "content-type": contentType },
    }).formData();
    expect(parseMultipart(bytes, contentType)).toEqual(Object.fromEntries(parsed));
  });

  it("reads a curl-style body (long boundary, no preamble, trailing CRLF)", () => {
    const boundary = "------------------------d74496d66958873e";
    const text = body([
      `--${boundary}`,
      'Content-Disposition: form-data; name="status"',
      "",
      "DELIVRD",
      `--${boundary}`,
      'Content-Disposition: form-data; name="units"',
      "",
      "2",
      `--${boundary}--`,
      "",
    ]);
    expect(parseMultipart(text, `multipart/form-data; boundary=${boundary}`)).toEqual({
      status: "DELIVRD",
      units: "2",
    });
  });

  it("reads bytes and strings alike", () => {
    const text = body([...field("a", "ü"), "--XyZ--"]);
    expect(parseMultipart(new TextEncoder().encode(text), CT)).toEqual({ a: "ü" });
    expect(parseMultipart(text, CT)).toEqual({ a: "ü" });
  });

  it.each([
    ["CRLF", "\r\n"],
    ["LF", "\n"],
  ])("reads %s line breaks", (_, eol) => {
    const text = body([...field("a", "1"), ...field("b", `two${eol}lines`), "--XyZ--", ""], eol);
    expect(parseMultipart(text, CT)).toEqual({ a: "1", b: `two${eol}lines` });
  });

  it("reads mixed CRLF and LF line breaks", () => {
    const text = '--XyZ\nContent-Disposition: form-data; name="a"\r\n\n1\r\n--XyZ\r\n\r\n--XyZ--';
    expect(parseMultipart(text, CT)).toEqual({ a: "1" });
  });

  it("ignores a preamble and an epilogue", () => {
    const text = body([
      "This is a preamble.",
      "--XyZ is not quite it; neither is --XyZW",
      "--XyZW",
      ...field("a", "1"),
      "--XyZ--",
      "epilogue",
      "--XyZ",
      'Content-Disposition: form-data; name="b"',
      "",
      "2",
    ]);
    expect(parseMultipart(text, CT)).toEqual({ a: "1" });
  });

  it("allows transport padding after a boundary", () => {
    const text = body([
      "--XyZ \t",
      ...field("a", "1").slice(1),
      "--XyZ  ",
      ...field("b", "2").slice(1),
      "--XyZ--  ",
    ]);
    expect(parseMultipart(text, CT)).toEqual({ a: "1", b: "2" });
  });

  it("does not end a value at a line that only starts with the boundary", () => {
    const text = body([...field("a", "x\r\n--XyZW\r\n--XyZ-y"), "--XyZ--"]);
    expect(parseMultipart(text, CT)).toEqual({ a: "x\r\n--XyZW\r\n--XyZ-y" });
  });

  it.each([
    ["unquoted", "multipart/form-data; boundary=XyZ"],
    ["quoted", 'multipart/form-data; boundary="XyZ"'],
    ["upper-case", "Multipart/Form-Data; BOUNDARY=XyZ"],
    ["between other parameters", "multipart/form-data; charset=utf-8; boundary=XyZ; foo=bar"],
    ["spaced", "multipart/form-data ;  boundary = XyZ ;"],
    ["without a space", "multipart/form-data;boundary=XyZ"],
  ])("takes the boundary parameter %s", (_, contentType) => {
    expect(parseMultipart(body([...field("a", "1"), "--XyZ--"]), contentType)).toEqual({ a: "1" });
  });

  it("takes a quoted boundary with characters a token cannot have", () => {
    const boundary = "a b:c=d?(e)";
    const text = body([...field("a", "1", boundary), `--${boundary}--`]);
    expect(parseMultipart(text, `multipart/form-data; boundary="${boundary}"`)).toEqual({ a: "1" });
  });

  it("reads field names quoted, unquoted and with escapes", () => {
    const text = body([
      "--XyZ",
      "Content-Disposition: form-data; name=plain",
      "",
      "1",
      "--XyZ",
      'content-disposition: FORM-DATA;name = "sp aced"',
      "",
      "2",
      "--XyZ",
      'Content-Disposition: form-data; name="a \\"quoted\\" \\\\ name"',
      "",
      "3",
      "--XyZ",
      'Content-Disposition: form-data; name="semi;colon"; other="x"',
      "",
      "4",
      "--XyZ",
      "Content-Disposition: form-data; name=token ; x=y",
      "",
      "5",
      "--XyZ",
      'Content-Disposition: form-data; name="%22html%22%0D%0Aescapes"',
      "",
      "6",
      "--XyZ--",
    ]);
    expect(parseMultipart(text, CT)).toEqual({
      plain: "1",
      "sp aced": "2",
      'a "quoted" \\ name': "3",
      "semi;colon": "4",
      token: "5",
      '"html"\r\nescapes': "6",
    });
  });

  it("reads a UTF-8 field name", () => {
    expect(parseMultipart(body([...field("ключ", "значение"), "--XyZ--"]), CT)).toEqual({
      ключ: "значение",
    });
  });

  it("reads a folded Content-Disposition header", () => {
    const text = body([
      "--XyZ",
      "Content-Disposition: form-data;",
      '\tname="a"',
      "",
      "1",
      "--XyZ--",
    ]);
    expect(parseMultipart(text, CT)).toEqual({ a: "1" });
  });

  it("skips file parts, however their filename is given", () => {
    const binary = new Uint8Array([0x80, 0xff, 0x0d, 0x0a, 0x2d, 0x2d, 0x58, 0x0a, 0x00]);
    const encoder = new TextEncoder();
    const bytes = new Uint8Array([
      ...encoder.encode(
        '--XyZ\r\nContent-Disposition: form-data; name="upload"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n',
      ),
      ...binary,
      ...encoder.encode(
        "\r\n--XyZ\r\nContent-Disposition: form-data; name=\"f2\"; filename*=UTF-8''%C3%A9.txt\r\n\r\nx",
      ),
      ...encoder.encode(
        '\r\n--XyZ\r\nContent-Disposition: form-data; name="f3"; filename=""\r\n\r\n',
      ),
      ...encoder.encode(
        '\r\n--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--XyZ--',
      ),
    ]);
    expect(parseMultipart(bytes, CT)).toEqual({ a: "1" });
  });

  it("reads a nameless part as nothing", () => {
    const text = body([
      "--XyZ",
      "Content-Type: text/plain",
      "",
      "orphan",
      "--XyZ",
      "",
      "no headers",
      "--XyZ",
      "Content-Disposition: form-data",
      "",
      "x",
      ...field("a", "1"),
      "--XyZ--",
    ]);
    expect(parseMultipart(text, CT)).toEqual({ a: "1" });
  });

  it("reads a field whose part has no body as empty", () => {
    const text = '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n--XyZ--';
    expect(parseMultipart(text, CT)).toEqual({ a: "" });
  });

  it("decodes a value in its part's charset", () => {
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0xa3]); // "café £"
    const encoder = new TextEncoder();
    const bytes = new Uint8Array([
      ...encoder.encode(
        '--XyZ\r\nContent-Disposition: form-data; name="latin"\r\nContent-Type: text/plain; charset=ISO-8859-1\r\n\r\n',
      ),
      ...latin1,
      ...encoder.encode(
        '\r\n--XyZ\r\nContent-Disposition: form-data; name="quoted"\r\ncontent-type: text/plain;charset="windows-1251"\r\n\r\n',
      ),
      0xcf,
      0xf0,
      0xe8,
      ...encoder.encode(
        '\r\n--XyZ\r\nContent-Disposition: form-data; name="unknown"\r\nContent-Type: text/plain; charset=x-nonsense\r\n\r\nü',
      ),
      ...encoder.encode('\r\n--XyZ\r\nContent-Disposition: form-data; name="plain"\r\n\r\nü'),
      ...encoder.encode("\r\n--XyZ--\r\n"),
    ]);
    expect(parseMultipart(bytes, CT)).toEqual({
      latin: "café £",
      quoted: "При",
      unknown: "ü",
      plain: "ü",
    });
  });

  it("decodes values without a charset of their own in the charset a _charset_ field names", () => {
    const encoder = new TextEncoder();
    const bytes = new Uint8Array([
      ...encoder.encode('--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n'),
      0xe9,
      ...encoder.encode('\r\n--XyZ\r\nContent-Disposition: form-data; name="_charset_"\r\n\r\n'),
      ...encoder.encode("iso-8859-1"),
      ...encoder.encode(
        '\r\n--XyZ\r\nContent-Disposition: form-data; name="b"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nü',
      ),
      ...encoder.encode("\r\n--XyZ--"),
    ]);
    expect(parseMultipart(bytes, CT)).toEqual({ a: "é", _charset_: "iso-8859-1", b: "ü" });
  });

  it("keeps the last of repeated names", () => {
    const text = body([...field("a", "1"), ...field("b", "x"), ...field("a", "2"), "--XyZ--"]);
    const fields = parseMultipart(text, CT);
    expect(fields).toEqual({ a: "2", b: "x" });
    expect(Object.keys(fields)).toEqual(["a", "b"]);
  });

  it("reads empty values and an empty name", () => {
    const text = body([...field("a", ""), ...field("", "v"), ...field("b", ""), "--XyZ--", ""]);
    expect(parseMultipart(text, CT)).toEqual({ a: "", "": "v", b: "" });
  });

  it("keeps a value's own line breaks, spaces and dashes", () => {
    const value = "  \r\n\r\nx--XyZ\r\n-- \n\r";
    expect(parseMultipart(body([...field("a", value), "--XyZ--"]), CT)).toEqual({ a: value });
  });

  it("reads a body with only a closing boundary as no fields", () => {
    expect(parseMultipart("--XyZ--\r\n", CT)).toEqual({});
    expect(parseMultipart("preamble\r\n--XyZ--", CT)).toEqual({});
  });

  it("makes __proto__ an own field, like Object.fromEntries(URLSearchParams) does", () => {
    const text = body([
      ...field("__proto__", "polluted"),
      ...field("constructor", "c"),
      ...field("toString", "t"),
      "--XyZ--",
    ]);
    const fields = parseMultipart(text, CT);
    const urlencoded = Object.fromEntries(
      new URLSearchParams("__proto__=polluted&constructor=c&toString=t"),
    );
    expect(Object.getPrototypeOf(fields)).toBe(Object.getPrototypeOf(urlencoded));
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(Object.hasOwn(fields, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(fields, "__proto__")?.value).toBe("polluted");
    expect(fields.constructor).toBe("c");
    expect(Object.keys(fields)).toEqual(["__proto__", "constructor", "toString"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  describe("refuses with invalid_form", () => {
    const valid = body([...field("a", "1"), "--XyZ--"]);

    it.each([
      ["no parameters", "multipart/form-data"],
      ["other parameters only", "multipart/form-data; charset=utf-8"],
      ["an empty boundary", "multipart/form-data; boundary="],
      ["an empty quoted boundary", 'multipart/form-data; boundary=""'],
      ["an empty Content-Type", ""],
    ])("a Content-Type with %s", (_, contentType) => {
      const error = refusal(() => parseMultipart(valid, contentType));
      expect(error.code).toBe("invalid_form");
      expect(error.status).toBe(400);
      expect(error.message).toMatch(/no boundary parameter/);
    });

    it.each([
      ["a wrong boundary", valid, "multipart/form-data; boundary=nope"],
      ["a boundary that is a longer one's prefix", valid, "multipart/form-data; boundary=Xy"],
      ["an empty body", "", CT],
      ["an empty byte body", new Uint8Array(0), CT],
      ["a body without a delimiter line", "just text", CT],
    ])("%s", (_, content, contentType) => {
      const error = refusal(() => parseMultipart(content, contentType));
      expect(error.code).toBe("invalid_form");
      expect(error.message).toMatch(/^The multipart\/form-data body could not be read: no part/);
    });

    it.each([
      ["in a value", valid.slice(0, valid.indexOf("1") + 1)],
      ["after a delimiter line", body([...field("a", "1"), "--XyZ", ""])],
      ["at a bare delimiter", body([...field("a", "1"), "--XyZ"])],
      ["at half a closing delimiter", body([...field("a", "1"), "--XyZ-"])],
      ["right after the opening delimiter", "--XyZ\r\n"],
      ["in the headers", '--XyZ\r\nContent-Disposition: form-data; name="a'],
    ])("a body truncated %s", (_, content) => {
      const error = refusal(() => parseMultipart(content, CT));
      expect(error.code).toBe("invalid_form");
      expect(error.message).toMatch(/closing boundary was not found/);
    });
  });
});
