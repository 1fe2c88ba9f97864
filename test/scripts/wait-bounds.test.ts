// Every `vi.waitFor` / `vi.waitUntil` / `expect.poll` in the repository's tests gives an
// explicit `timeout` of at least 10 s. Their default is 1 s, which a loaded 2-core CI machine
// (a new BullMQ worker, a browser, a child process) can miss, failing a test that is right.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = new URL("../..", import.meta.url).pathname;
const MIN_TIMEOUT_MS = 10_000;
const WAITS = new Set(["vi.waitFor", "vi.waitUntil", "expect.poll"]);

/** Every .ts file of the tests: packages/*\/src, test/ and examples/, without node_modules. */
function testSources(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "dist") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) files.push(path);
    }
  };
  walk(join(root, "test"));
  walk(join(root, "examples"));
  for (const pkg of readdirSync(join(root, "packages"))) walk(join(root, "packages", pkg, "src"));
  return files;
}

/** The waits in `source` without a literal `timeout` of at least MIN_TIMEOUT_MS, as "line: call". */
function unboundedWaits(source: string, fileName = "file.ts"): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const callee = node.expression;
      const name = `${callee.expression.getText(file)}.${callee.name.text}`;
      if (WAITS.has(name) && !hasTimeout(node.arguments[1], file)) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
        found.push(`${line + 1}: ${name}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function hasTimeout(options: ts.Expression | undefined, file: ts.SourceFile): boolean {
  if (options === undefined || !ts.isObjectLiteralExpression(options)) return false;
  return options.properties.some(
    (p) =>
      ts.isPropertyAssignment(p) &&
      p.name.getText(file) === "timeout" &&
      isLongEnough(p.initializer),
  );
}

/** A literal of MIN_TIMEOUT_MS or more, or a sum with one (`LEASE_MS + 10_000`). */
function isLongEnough(value: ts.Expression): boolean {
  if (ts.isNumericLiteral(value)) return Number(value.text) >= MIN_TIMEOUT_MS;
  if (ts.isParenthesizedExpression(value)) return isLongEnough(value.expression);
  return (
    ts.isBinaryExpression(value) &&
    value.operatorToken.kind === ts.SyntaxKind.PlusToken &&
    (isLongEnough(value.left) || isLongEnough(value.right))
  );
}

describe("waits in tests", () => {
  it("finds a wait without a timeout, with too short a one, and accepts a long enough one", () => {
    const source = [
      "await vi.waitFor(() => expect(seen).toHaveLength(2));",
      "await expect.poll(() => count(), { interval: 50 }).toBe(1);",
      "await expect",
      "  .poll(() => count(), { timeout: 2_000 })",
      "  .toBe(1);",
      "await vi.waitUntil(() => ready);",
      "await vi.waitFor(() => expect(seen).toHaveLength(2), { timeout: 15_000 });",
      "await expect.poll(() => count(), { timeout: 10000, interval: 50 }).toBe(1);",
      "await vi.waitFor(() => claim(), { timeout: LEASE_MS + 10_000 });",
      "await vi.waitFor(() => claim(), { timeout: LEASE_MS + 500 });",
      "await vi.waitFor(() => claim(), { timeout: WAIT_MS });",
    ].join("\n");
    expect(unboundedWaits(source)).toEqual([
      "1: vi.waitFor",
      "2: expect.poll",
      "3: expect.poll",
      "6: vi.waitUntil",
      "10: vi.waitFor",
      "11: vi.waitFor",
    ]);
  });

  it("every vi.waitFor / vi.waitUntil / expect.poll in the tests has a timeout of 10 s or more", () => {
    const files = testSources();
    expect(files.length).toBeGreaterThan(50);
    let waits = 0;
    const unbounded: string[] = [];
    for (const path of files) {
      const source = readFileSync(path, "utf8");
      waits += source.match(/\b(vi\.waitFor|vi\.waitUntil|expect\s*\.poll)\(/g)?.length ?? 0;
      for (const wait of unboundedWaits(source, path))
        unbounded.push(`${relative(root, path)}:${wait}`);
    }
    // The scan saw the waits the suite has (this file's own examples included).
    expect(waits).toBeGreaterThan(50);
    expect(unbounded).toEqual([]);
  });
});
