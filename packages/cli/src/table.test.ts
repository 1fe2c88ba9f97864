// The CLI's line writer: a value is redacted, then cut, then escaped, in that order, so that a
// cut never shows the start of a secret and no value ends its line or reorders it. Blocks keep
// their line breaks but not the characters a terminal acts on or that reorder text.
import { redactor } from "@reportkit/client/internal";
import { describe, expect, it } from "vitest";
import { cut, line, lineWriter } from "./table.js";
import { terminalSafe } from "./terminal-safe.js";

describe("lineWriter", () => {
  it("redacts a value before it cuts it, then escapes it; the template's own text as written", () => {
    const secret = "Zq7-ssssssss";
    const write = lineWriter(redactor(secret));
    const reply = `${"x".repeat(10)}\n\u001b[2K Bearer ${secret} and more`;
    expect(write`key\t${"m-1\nm-9"}  failed: ${cut(reply, 20)}`).toBe(
      "key\tm-1\\u000am-9  failed: xxxxxxxxxx \\u001b[2K Bear…\n",
    );
    expect(write`${cut(reply, 27)}`).toBe("xxxxxxxxxx \\u001b[2K Bearer [tok…\n");
    expect(line`${3} ${"a\u202eb\u2066c\u2028d\u0085"}`).toBe(
      "3 a\\u202eb\\u2066c\\u2028d\\u0085\n",
    );
  });
});

describe("terminalSafe", () => {
  it("keeps newline and tab in a block, escapes controls and bidirectional overrides", () => {
    expect(terminalSafe("a\tb\nc\u001b]0;x\u0007\u200fd\u061ce\u202d")).toBe(
      "a\tb\nc\\u001b]0;x\\u0007\\u200fd\\u061ce\\u202d",
    );
  });
});
