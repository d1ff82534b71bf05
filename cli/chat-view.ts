import type { ActiveSkillRef, ProcessTurnScheduledFrame, SkillSummary, Turn } from "../client/index.js";

/** What a composed turn prints (`--show`, `/show`). */
export const SHOW_PARTS = ["section", "tools", "catalog", "prompt", "messages"] as const;
export type ShowPart = (typeof SHOW_PARTS)[number];
export const DEFAULT_SHOW: readonly ShowPart[] = ["section", "tools", "catalog"];

const isShowPart = (value: string): value is ShowPart => (SHOW_PARTS as readonly string[]).includes(value);

/** `section,tools` / `all` / `none` → the parts; an unknown word is named. */
export function parseShow(words: readonly string[]): { parts: ShowPart[] } | { error: string } {
  const parts = new Set<ShowPart>();
  for (const word of words.flatMap((w) => w.split(",")).filter((w) => w !== "")) {
    if (word === "all") SHOW_PARTS.forEach((p) => parts.add(p));
    else if (word === "none") parts.clear();
    else if (isShowPart(word)) parts.add(word);
    else return { error: `unknown --show part '${word}'; one of ${[...SHOW_PARTS, "all", "none"].join(", ")}` };
  }
  return { parts: [...parts] };
}

/** The prompt line: the active skills with how each became active, then the process name. */
export function promptLine(processName: string, active: readonly ActiveSkillRef[]): string {
  const skills = active.map((s) => `${s.name}(${s.activatedBy}${s.oneShot ? ",once" : ""})`).join(" ");
  return `${skills === "" ? "" : `[${skills}] `}${processName}> `;
}

export function formatSkillList(skills: readonly SkillSummary[], active: readonly ActiveSkillRef[]): string[] {
  if (skills.length === 0) return ["no skills visible in this project"];
  const byName = new Map(active.map((s) => [s.name, s]));
  return skills.map((s) => {
    const on = byName.get(s.name);
    const mark = on ? `* active (${on.activatedBy}${on.oneShot ? ", once" : ""})` : "";
    return `  ${s.name.padEnd(24)} ${s.source.padEnd(8)} ${mark.padEnd(22)} ${s.description.split("\n")[0]?.slice(0, 80) ?? ""}`.trimEnd();
  });
}

export function formatScheduled(frame: ProcessTurnScheduledFrame): string[] {
  const pending = frame.pending.map((m) => `    [${m.sender}] ${m.text.split("\n")[0]?.slice(0, 120) ?? ""}`);
  return [`» turn scheduled (${frame.reason}): ${frame.pending.length} pending message(s); /turn runs it`, ...pending];
}

const indent = (text: string): string[] => text.split("\n").map((l) => `  ${l}`);

/** A composed Turn, as much of it as `parts` asks for. */
export function formatTurn(turn: Turn, parts: readonly ShowPart[]): string[] {
  const lines = [`turn ${turn.turnId}: ${turn.messages.length} message(s), ${turn.activeSkills.length} active skill(s)`];
  if (parts.includes("prompt")) for (const m of turn.systemPrompt) lines.push("── system ──", ...indent(m.content));
  if (parts.includes("section"))
    lines.push("── skill section ──", ...(turn.skillSection.trim() === "" ? ["  (empty: no active skill)"] : indent(turn.skillSection)));
  if (parts.includes("messages")) for (const m of turn.messages) lines.push(`  [${m.sender}] ${m.text}`);
  if (parts.includes("tools")) lines.push(`tools: ${turn.tools.length === 0 ? "(none)" : turn.tools.join(", ")}`);
  if (parts.includes("catalog")) {
    const c = turn.catalog;
    const names = c.entries.map((e) => e.name).join(", ");
    lines.push(
      `catalog: ${c.entries.length} entr${c.entries.length === 1 ? "y" : "ies"}${names === "" ? "" : ` (${names})`}, ${c.omitted.length} omitted, ${c.usedChars}/${c.budgetChars} chars`,
    );
  }
  return lines;
}
