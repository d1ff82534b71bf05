import { yamlLibrary } from "../lazy/lazy-libraries.js";
import type { YAMLError } from "yaml";

/**
 * What the YAML package reports is where it noticed a problem; an author needs where it started
 * and what to write instead (issue 30). Two shapes account for most broken frontmatter of real
 * skill collections:
 * - a plain value holding `: ` (`description: Use when: the user asks…`): the package says
 *   "Nested mappings are not allowed in compact mappings"; the fix is to quote the value;
 * - a flow collection or quoted value left open (`tools: [a, b` on line 4): the package notices at
 *   the next line or the end; the cause is the opening `[`, `{` or quote.
 */
export interface YamlErrorHint {
  /** Offset in the parsed text of the cause, when it lies before where the package noticed. */
  causeOffset?: number;
  /** Appended to the package's message. */
  fix?: string;
}

const MAX_SHOWN_VALUE = 60;

/** The line of `text` that holds `offset`, without its line break. */
function lineText(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  const end = text.indexOf("\n", offset);
  return text.slice(start, end === -1 ? undefined : end).replace(/\r$/, "");
}

/** `key: value with: colon` → `key: "value with: colon"` (shortened), the usual fix. */
function quotedValueFix(line: string): string | undefined {
  const match = /^(\s*(?:- )?[^\s:#][^:#]*?):[ \t]+(.+?)\s*$/.exec(line);
  if (!match) return undefined;
  const [, key, value] = match;
  if (!key || !value || /^["'[{|>]/.test(value)) return undefined;
  const escaped = value.replaceAll("\\", "\\\\").replaceAll('"', '\\"');
  const cut = escaped.length > MAX_SHOWN_VALUE ? `${escaped.slice(0, MAX_SHOWN_VALUE)}…` : escaped;
  return `a plain value may not contain ': '; quote it: ${key.trim()}: "${cut}"`;
}

/** Offset of the innermost flow collection or quoted scalar still open at `before`, by the package's own lexer. */
function openedAt(text: string, before: number, kind: "flow" | "quote"): number | undefined {
  const open: number[] = [];
  let quote: number | undefined;
  let offset = 0;
  const { CST, Lexer } = yamlLibrary();
  for (const lexeme of new Lexer().lex(text)) {
    if (offset >= before) break;
    // The lexer also yields control tokens that mark a document or a scalar: not source text.
    if (lexeme === CST.DOCUMENT || lexeme === CST.FLOW_END || lexeme === CST.SCALAR) continue;
    const type = CST.tokenType(lexeme);
    if (type === "flow-map-start" || type === "flow-seq-start") open.push(offset);
    else if (type === "flow-map-end" || type === "flow-seq-end") open.pop();
    else if (type === "double-quoted-scalar" || type === "single-quoted-scalar") {
      const q = lexeme[0];
      // An unclosed quoted scalar runs to the end of the input, so it is the last one opened.
      const closed = lexeme.length > 1 && lexeme.endsWith(q ?? "") && !(q === '"' && /(^|[^\\])(\\\\)*\\"$/.test(lexeme));
      if (!closed) quote = offset;
    }
    offset += lexeme.length;
  }
  return kind === "flow" ? open.at(-1) : quote;
}

export function yamlErrorHint(text: string, error: Pick<YAMLError, "code" | "message" | "pos">): YamlErrorHint {
  const at = error.pos[0];
  if (error.code === "BLOCK_AS_IMPLICIT_KEY" || /Nested mappings are not allowed in compact mappings/.test(error.message)) {
    const fix = quotedValueFix(lineText(text, at));
    return fix ? { fix } : {};
  }
  if (/Flow (sequence|map)|end with a [\]}]|Expected flow (sequence|map) end/i.test(error.message)) {
    const cause = openedAt(text, at, "flow");
    const bracket = cause === undefined ? undefined : text[cause];
    return cause === undefined
      ? {}
      : { causeOffset: cause, fix: `the '${bracket}' opened here is never closed; close it with '${bracket === "[" ? "]" : "}"}'` };
  }
  if (error.code === "MISSING_CHAR" && /quote/i.test(error.message)) {
    const cause = openedAt(text, text.length, "quote");
    return cause === undefined
      ? {}
      : { causeOffset: cause, fix: `the ${text[cause] === '"' ? "double" : "single"} quote opened here is never closed` };
  }
  return {};
}
