/**
 * The bounded text a skill is found by besides its frontmatter (issue 26): many real skills name
 * only a product in their description and say what they do in the body — section titles, tool
 * names. Derived once at parse time so relevance never needs the body at query time (a cold
 * instance's snapshot carries this field, not the body).
 *
 * Three lines, each bounded, in this order (relevance-index.ts weights them):
 *   1. the body's Markdown headings, joined with " · " (weighted like tags);
 *   2. tool names: the skill's `tools` and the identifiers its body names in code spans or as
 *      SCREAMING_SNAKE tool slugs (`SLACK_SEND_MESSAGE`), deduplicated (weighted like tags);
 *   3. the first words of the body's prose, code blocks left out (weighted below the description).
 * The whole is at most MAX_SEARCH_TEXT_CHARS; an empty body and no tools give "".
 */
export const MAX_SEARCH_TEXT_CHARS = 1_024;
const MAX_HEADINGS_CHARS = 400;
const MAX_TOOLS_CHARS = 300;
/** The body is scanned this far at most: a 1 MB body costs the same as a 64 KB one. */
const MAX_SCANNED_BODY_CHARS = 64 * 1024;

const HEADING = /^#{1,6}[ \t]+(.+?)[ \t#]*$/;
const FENCE = /^[ \t]*(```|~~~)/;
const CODE_SPAN = /`([A-Za-z_][\w.:/-]{2,63})`/g;
const TOOL_SLUG = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+){1,8}\b/g;

export function searchTextOf(body: string, tools: readonly string[] = []): string {
  const scanned = body.length > MAX_SCANNED_BODY_CHARS ? body.slice(0, MAX_SCANNED_BODY_CHARS) : body;
  const headings: string[] = [];
  const toolNames = new Set<string>(tools.map((t) => oneLine(t)).filter((t) => t !== ""));
  const prose: string[] = [];
  let headingChars = 0;
  let proseChars = 0;
  let inFence = false;
  for (const line of scanned.split("\n")) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    for (const match of line.matchAll(TOOL_SLUG)) addBounded(toolNames, match[0]);
    if (inFence) continue;
    for (const match of line.matchAll(CODE_SPAN)) addBounded(toolNames, match[1]!);
    const heading = HEADING.exec(line);
    if (heading) {
      const text = oneLine(heading[1]!);
      if (text !== "" && headingChars + text.length <= MAX_HEADINGS_CHARS) {
        headings.push(text);
        headingChars += text.length + 3;
      }
      continue;
    }
    const text = oneLine(line.replace(/[*_>#|`[\]()]+/g, " "));
    if (text !== "" && proseChars < MAX_SEARCH_TEXT_CHARS) {
      prose.push(text);
      proseChars += text.length + 1;
    }
  }
  const toolLine = capChars([...toolNames].join(" "), MAX_TOOLS_CHARS);
  const headingLine = headings.join(" · ");
  const head = `${headingLine}\n${toolLine}\n`;
  if (headingLine === "" && toolLine === "" && prose.length === 0) return "";
  return head + capChars(prose.join(" "), MAX_SEARCH_TEXT_CHARS - head.length);
}

const MAX_TOOL_NAMES = 64;

function addBounded(set: Set<string>, name: string): void {
  if (set.size < MAX_TOOL_NAMES) set.add(name);
}

const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim();

/** Cut at a word boundary where one is near, never inside a surrogate pair. */
function capChars(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let cut = text.slice(0, Math.max(0, limit));
  const space = cut.lastIndexOf(" ");
  if (space > limit - 40) cut = cut.slice(0, space);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut;
}
