import type { ActiveSkillRef, PendingMessage } from "../processes/process.js";
import type { ActivationEntry } from "./activation-ledger.js";
import type { SkillCatalog } from "../skills/skill-catalog.js";
import type { ToolSpec } from "../skills/tool-spec.js";

export interface SystemMessage {
  role: "system";
  content: string;
}

/**
 * A message the turn delivers to the model: a consumed pending message (sender `_skill`,
 * `_process`, `_guard`, or the user whose arguments were injected) or the turn's own user
 * message, in that order. The pending fields are kept as they were queued.
 */
export type TurnMessage = PendingMessage & { role: "user" };

/** API.md `Turn`; `warnings` lists skills left out and similar findings that did not fail the turn. */
export interface Turn {
  turnId: string;
  /** [engine default + recipe prefix per promptMode] then [skill section], each omitted when empty (spec §5a). */
  systemPrompt: SystemMessage[];
  skillSection: string;
  tools: string[];
  toolSpecs: ToolSpec[];
  manualPaths: string[];
  messages: TurnMessage[];
  activeSkills: ActiveSkillRef[];
  /** API.md "Explainable activation": how each active skill got there, and which matched triggers did not activate (activation-ledger.ts). */
  activation: ActivationEntry[];
  warnings: string[];
  /** API.md "Catalog and model activation": what the model may activate with skill_activate. */
  catalog: SkillCatalog;
  /** Each skill of the skill section with its block's characters / 4, rounded up, in section order. */
  skillTokens: { name: string; approxTokens: number }[];
}
