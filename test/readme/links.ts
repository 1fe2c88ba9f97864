import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { headingAnchors } from "./snippets.js";

/** The repository as published: package READMEs link here, since relative links break on npm. */
export const REPOSITORY = "https://github.com/reportkit/reportkit";

/**
 * The repository's documentation, as paths relative to `root`: README.md, ARCHITECTURE.md when
 * present, every Markdown page under docs/, and each package's README.md.
 */
export function documentationFiles(root: string): string[] {
  const pages = (dir: string): string[] =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir), { withFileTypes: true })
          .sort((a, b) => a.name.localeCompare(b.name))
          .flatMap((entry) => {
            const path = `${dir}/${entry.name}`;
            if (entry.isDirectory()) return pages(path);
            return entry.name.endsWith(".md") ? [path] : [];
          })
      : [];
  const packages = readdirSync(join(root, "packages"))
    .sort()
    .map((name) => `packages/${name}/README.md`);
  return ["README.md", "ARCHITECTURE.md", ...pages("docs"), ...packages].filter((path) =>
    existsSync(join(root, path)),
  );
}

/** One inline link (or image) of a Markdown file. */
export interface Link {
  /** 1-based line the link's target is on. */
  line: number;
  /** The target as written, e.g. `docs/options.md#options`, `#replies`, `https://…`. */
  target: string;
}

/** The text with code blocks and code spans blanked out (newlines kept, so offsets hold). */
function withoutCode(markdown: string): string {
  const blank = (text: string) => text.replace(/[^\n]/g, " ");
  const lines = markdown.split("\n");
  let fence: string | null = null;
  const prose = lines.map((line) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (open !== null) {
      if (fence === null) fence = open[1] as string;
      else if (line.trim().startsWith(fence)) fence = null;
      return blank(line);
    }
    return fence === null ? line : blank(line);
  });
  // A code span closes with a run of backticks as long as the one that opened it.
  return prose.join("\n").replace(/(`+)[\s\S]*?[^`]\1(?!`)/g, blank);
}

/** Every inline link `[text](target)` of a Markdown text, outside code. */
export function markdownLinks(markdown: string): Link[] {
  const text = withoutCode(markdown);
  const links: Link[] = [];
  const pattern =
    /\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?((?:[^()\s<>]|\([^()\s]*\))+)>?(?:\s+"[^"]*")?\s*\)/g;
  for (const match of text.matchAll(pattern)) {
    const at = (match.index ?? 0) + match[0].indexOf("(");
    links.push({
      line: text.slice(0, at).split("\n").length,
      target: match[1] as string,
    });
  }
  return links;
}

/**
 * Why a link of `file` (relative to `root`) does not resolve, or null when it does: a relative
 * path must name a file or directory of the repository, and an anchor a heading of the
 * Markdown file it points into. Links to the repository on GitHub (`…/blob/main/<path>`,
 * `…/tree/main/<path>`, `…#readme`) are checked against the files here; other URLs are not.
 */
export function brokenLink(root: string, file: string, target: string): string | null {
  let path: string;
  let anchor: string | undefined;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
    if (target === `${REPOSITORY}#readme`) return null;
    const onGitHub = new RegExp(`^${REPOSITORY}/(?:blob|tree)/main/([^#?]+)(?:#(.*))?$`).exec(
      target,
    );
    if (onGitHub === null) return null;
    path = onGitHub[1] as string;
    anchor = onGitHub[2];
  } else {
    const [relativePath = "", hash] = target.split("#", 2);
    anchor = hash;
    path =
      relativePath === ""
        ? file
        : relative(root, join(root, dirname(file), decodeURIComponent(relativePath)));
  }
  const where = path.split(sep).join("/");
  if (where.startsWith("../") || where === "..") return `${target} leaves the repository`;
  if (!existsSync(join(root, where))) return `${target}: there is no ${where}`;
  if (anchor === undefined) return null;
  if (!where.endsWith(".md") || statSync(join(root, where)).isDirectory()) {
    return `${target}: an anchor into ${where}, which is no Markdown file`;
  }
  const anchors = headingAnchors(readFileSync(join(root, where), "utf8"));
  return anchors.has(anchor)
    ? null
    : `${target}: ${where} has no heading with the anchor #${anchor}`;
}
