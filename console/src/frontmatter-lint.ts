import { isMap, isSeq, LineCounter, parseDocument } from "yaml";
import type { Node as YamlNode } from "yaml";
import * as z from "zod";
import schema from "../../schema/skill-frontmatter.schema.json" with { type: "json" };

// The console's Content-Security-Policy allows no eval (infra/console-csp.ts): without this, zod
// probes `new Function` for its fast object parser, which the browser reports as a violation.
z.config({ jitless: true });

/** One finding for the editor: a 1-based line of the whole SKILL.md. */
export interface LintProblem {
  line: number;
  severity: "error" | "warning";
  message: string;
}

// The published schema (schema/, written from the service's own zod schema by `npm run schema`),
// read back by zod once. Agent Skills fields the service only warns about are allowed by it.
const frontmatter = z.fromJSONSchema(schema as unknown as Parameters<typeof z.fromJSONSchema>[0]);

const FENCE = /^---\s*$/;

/**
 * Parses the frontmatter of a SKILL.md and checks it against the published JSON Schema, as the
 * editor types. The service stays the judge: its 422 problems are shown too, at their lines.
 */
export function lintSkillMarkdown(text: string): LintProblem[] {
  const lines = text.split("\n");
  if (!FENCE.test(lines[0] ?? ""))
    return [{ line: 1, severity: "error", message: "A SKILL.md starts with a '---' line opening its YAML frontmatter" }];
  const end = lines.findIndex((line, index) => index > 0 && FENCE.test(line));
  if (end < 0) return [{ line: 1, severity: "error", message: "The frontmatter has no closing '---' line" }];
  const yamlText = lines.slice(1, end).join("\n");
  const counter = new LineCounter();
  const document = parseDocument(yamlText, { lineCounter: counter, prettyErrors: false });
  // +1: the opening fence is line 1 of the file, the YAML's line 1 is the file's line 2.
  const lineAt = (offset: number | undefined): number => (offset === undefined ? 1 : counter.linePos(offset).line + 1);
  if (document.errors.length > 0) {
    return document.errors.map((error) => ({
      line: lineAt(causeOffset(yamlText, error.message, error.pos[0])),
      severity: "error",
      message: error.message.split("\n")[0] ?? error.message,
    }));
  }
  const checked = frontmatter.safeParse(document.toJS());
  if (checked.success) return [];
  return checked.error.issues.map((issue) => {
    // A union (a trigger's two shapes) says little by itself: its first branch's first issue does.
    const detail = issue.code === "invalid_union" ? issue.errors[0]?.[0] : undefined;
    const path = [...issue.path, ...(detail?.path ?? [])].map(String);
    const node = nodeAt(document.contents as YamlNode | null, path);
    const where = path.length === 0 ? "frontmatter" : path.join(".");
    return { line: lineAt(node?.range?.[0]), severity: "error" as const, message: `${where}: ${(detail ?? issue).message}` };
  });
}

/**
 * Where an error's cause is. The parser reports an unclosed flow collection (`tags: [a, b` with no
 * `]`) where it notices it, at the next line; the author must look at the bracket that opened it:
 * the last `[` (or `{`) before that point not closed before it.
 */
function causeOffset(text: string, message: string, offset: number): number {
  const flow = /^Flow (sequence|map)\b/.exec(message);
  if (!flow) return offset;
  const [open, close] = flow[1] === "sequence" ? ["[", "]"] : ["{", "}"];
  let depth = 0;
  for (let index = Math.min(offset, text.length) - 1; index >= 0; index -= 1) {
    const char = text[index];
    if (char === close) depth += 1;
    else if (char === open) {
      if (depth === 0) return index;
      depth -= 1;
    }
  }
  return offset;
}

/** The YAML node an issue's path names (the deepest that exists), so the error lands on its line. */
function nodeAt(root: YamlNode | null, path: string[]): YamlNode | null {
  let node: YamlNode | null = root;
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => (item.key as { value?: unknown } | null)?.value === key);
      node = (pair?.value as YamlNode | null | undefined) ?? (pair?.key as YamlNode | null | undefined) ?? node;
    } else if (isSeq(node)) {
      node = (node.items[Number(key)] as YamlNode | undefined) ?? node;
    } else break;
  }
  return node;
}
