import { readFileSync } from "node:fs";

/** One ```ts or ```typescript block of a Markdown file. */
export interface Snippet {
  /** 1-based line of the block's first code line in the Markdown file. */
  line: number;
  /** The code, without the fences. */
  code: string;
  /** The first code line, to name the snippet in a test title. */
  title: string;
}

const OPEN = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/;

/**
 * Every TypeScript code block of a Markdown file, with the line it starts on. A block is
 * TypeScript when its info string's first word is `ts` or `typescript` (any case).
 */
export function typescriptSnippets(markdownFile: string): Snippet[] {
  const lines = readFileSync(markdownFile, "utf8").split(/\r?\n/);
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPEN.exec(lines[i] as string);
    if (open === null) continue;
    const [, indent = "", fence = "", language = ""] = open;
    const body: string[] = [];
    let j = i + 1;
    // A closing fence is at least as long as the opening one, of the same character.
    const close = new RegExp(`^\\s*${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    while (j < lines.length && !close.test(lines[j] as string)) {
      body.push((lines[j] as string).slice(indent.length));
      j++;
    }
    if (/^(ts|typescript)$/i.test(language)) {
      snippets.push({
        line: i + 2,
        code: body.join("\n"),
        title: (body.find((l) => l.trim() !== "") ?? "").trim().slice(0, 70),
      });
    }
    i = j;
  }
  return snippets;
}

/**
 * The anchor GitHub gives a heading: lower case, punctuation other than "-" and "_" dropped,
 * spaces as "-"; a repeated heading gets "-1", "-2", ...
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of markdown.split(/\r?\n/)) {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (open !== null) {
      if (fence === null) fence = open[1] as string;
      else if (line.trim().startsWith(fence)) fence = null;
      continue;
    }
    const heading = fence === null ? /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line) : null;
    if (heading === null) continue;
    const base = (heading[1] as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}
