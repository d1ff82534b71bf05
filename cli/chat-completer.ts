import type { ActiveSkillRef, SkillSummary } from "../client/index.js";

/** What completion knows: refreshed by the session after each list and each steering answer. */
export interface CompletionState {
  skills: readonly SkillSummary[];
  active: readonly ActiveSkillRef[];
}

const COMMANDS = ["/skill ", "/turn", "/show ", "/help", "/exit"];
const SHOW_PARTS = ["section", "tools", "catalog", "prompt", "messages", "all", "none"];
const BOOLEAN_VALUES = ["true", "false"];

const startingWith = (prefix: string, words: readonly string[]): string[] => words.filter((w) => w.startsWith(prefix));

/**
 * node:readline's completer for `skills chat`: command names, skill names after `/skill`
 * (user-invocable ones), active skills after `/skill clear`, `--once`, and the declared values of
 * the argument the cursor is at (its `enum`, else a boolean's true/false). Returns [candidates, the word they replace].
 * A single candidate that is a whole word ends with a space, as a shell completes: the next word
 * can be typed at once (readline inserts a lone candidate as it is).
 */
export function completeChatLine(line: string, state: CompletionState): [string[], string] {
  const [candidates, word] = candidatesFor(line, state);
  return [candidates.length === 1 && !candidates[0]?.endsWith(" ") ? [`${candidates[0]} `] : candidates, word];
}

/**
 * True when the line names a skill the completion state does not know: `/skill <prefix>` with no
 * candidate, or `/skill <name> …` of an unknown name. The chat then reloads the names (a skill may
 * have been pushed since) and completes again.
 */
export function missesSkillName(line: string, state: CompletionState): boolean {
  const words = line.split(/\s+/);
  if (words[0] !== "/skill" || words.length < 2) return false;
  const name = words[1] ?? "";
  if (name === "list" || name === "clear") return false;
  const names = state.skills.map((s) => s.name);
  return words.length === 2 ? !names.some((n) => n.startsWith(name)) : !names.includes(name);
}

function candidatesFor(line: string, state: CompletionState): [string[], string] {
  if (!line.startsWith("/")) return [[], line];
  const words = line.split(/\s+/);
  const current = words.at(-1) ?? "";
  if (words.length === 1) return [startingWith(current, COMMANDS), current];
  if (words[0] === "/show") return [startingWith(current, SHOW_PARTS), current];
  if (words[0] !== "/skill") return [[], current];
  if (words.length === 2) {
    const names = state.skills.filter((s) => s.userInvocable !== false).map((s) => s.name);
    return [startingWith(current, [...names, "list", "clear"]), current];
  }
  const name = words[1];
  if (name === "clear")
    return words.length === 3
      ? [
          startingWith(
            current,
            state.active.map((s) => s.name),
          ),
          current,
        ]
      : [[], current];
  const skill = state.skills.find((s) => s.name === name);
  if (!skill) return [[], current];
  const rest = words.slice(2);
  const once = rest[0] === "--once";
  const position = rest.length - 1 - (once ? 1 : 0);
  const candidates = position === 0 && rest.length === 1 ? ["--once"] : [];
  const declared = Array.isArray(skill.arguments) ? skill.arguments[position] : undefined;
  if (declared?.enum) candidates.push(...declared.enum.map(String));
  else if (declared?.type === "boolean") candidates.push(...BOOLEAN_VALUES);
  return [startingWith(current, candidates), current];
}
