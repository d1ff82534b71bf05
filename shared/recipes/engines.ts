import { DEFAULT_CATALOG_BUDGET_CHARS } from "../skills/skill-catalog.js";

/**
 * Engines are code in the agent platform; this service only needs their default system prompt
 * and default tool whitelist to compose a turn (spec §5a [1], §5b). Bundled configuration.
 */
export interface EngineConfig {
  name: string;
  systemPrompt: string;
  allowedTools: readonly string[];
  /** Characters of the skill catalog in the system prompt (a recipe may override); 0 = no catalog. */
  catalogBudgetChars: number;
}

const ENGINES: Readonly<Record<string, EngineConfig>> = {
  ford: {
    name: "ford",
    systemPrompt:
      "You are Ford, a focused working agent. Work step by step, use the tools you are given, " +
      "and report concisely what you did and what remains.",
    allowedTools: ["file_read", "file_list", "manual_list", "manual_read", "web_search"],
    catalogBudgetChars: DEFAULT_CATALOG_BUDGET_CHARS,
  },
  arthur: {
    name: "arthur",
    systemPrompt:
      "You are Arthur, a conversational agent. Understand what the user wants, answer directly, " +
      "and spawn workers for long or isolated tasks.",
    allowedTools: ["manual_list", "manual_read", "process_spawn", "web_search"],
    catalogBudgetChars: DEFAULT_CATALOG_BUDGET_CHARS,
  },
  frankie: {
    name: "frankie",
    systemPrompt: "You are Frankie, a structured task runner. Follow the plan, one action at a time.",
    allowedTools: ["file_read", "file_list", "manual_list", "manual_read"],
    catalogBudgetChars: DEFAULT_CATALOG_BUDGET_CHARS,
  },
};

export const engineConfig = (name: string): EngineConfig | undefined =>
  Object.prototype.hasOwnProperty.call(ENGINES, name) ? ENGINES[name] : undefined;

export const ENGINE_NAMES: readonly string[] = Object.keys(ENGINES);
