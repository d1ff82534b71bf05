/**
 * Caps on how many triggers a skill and a level hold (docs/decisions.md, "Trigger memory and
 * time"). Every message of a turn is matched against every trigger of every visible skill, so
 * what one member may save decides what every turn of the project costs.
 *
 * - Per skill: at most MAX_TRIGGERS_PER_SKILL triggers (the schema's limit) of which at most
 *   MAX_PATTERN_TRIGGERS_PER_SKILL are PATTERN triggers. A fixed part of the document format:
 *   the validator refuses more (422 on save; at load the skill is defective, reported in
 *   GET …/skills/problems), so "saved" and "loadable" cannot drift apart.
 * - Per level (one document project: `<projectId>`, `_tenant` or `_user_<login>`): at most
 *   `patternsPerLevel` PATTERN triggers and `triggersPerLevel` triggers over all its skills.
 *   A save that would exceed them is refused (422, DocumentService); a level that holds more
 *   anyway (written to the bucket directly, or the caps were lowered) keeps its skills, but the
 *   skills past the cap, in name order, lose their triggers in listings, each with a problem
 *   saying so (SkillLoader).
 */
export const MAX_TRIGGERS_PER_SKILL = 50;
export const MAX_PATTERN_TRIGGERS_PER_SKILL = 10;

/** What is counted of a trigger (structural: skill-frontmatter.ts imports this module for its caps). */
interface CountedTrigger {
  readonly type: string;
}

export interface TriggerLevelCaps {
  /** PATTERN triggers over all skills of one level. */
  readonly patternsPerLevel: number;
  /** Triggers (PATTERN and KEYWORDS) over all skills of one level. */
  readonly triggersPerLevel: number;
}

export const DEFAULT_TRIGGER_LEVEL_CAPS: TriggerLevelCaps = Object.freeze({ patternsPerLevel: 200, triggersPerLevel: 1000 });

export interface TriggerCount {
  readonly triggers: number;
  readonly patterns: number;
}

export function countTriggers(triggers: readonly CountedTrigger[]): TriggerCount {
  return { triggers: triggers.length, patterns: triggers.filter((t) => t.type === "PATTERN").length };
}

export function addCounts(a: TriggerCount, b: TriggerCount): TriggerCount {
  return { triggers: a.triggers + b.triggers, patterns: a.patterns + b.patterns };
}

/** Why a level with `count` is over `caps`, or undefined. */
export function levelCapExceeded(count: TriggerCount, caps: TriggerLevelCaps): string | undefined {
  if (count.patterns > caps.patternsPerLevel) {
    return `this level's skills would hold ${count.patterns} PATTERN triggers; at most ${caps.patternsPerLevel} are allowed per level (user, project or tenant)`;
  }
  if (count.triggers > caps.triggersPerLevel) {
    return `this level's skills would hold ${count.triggers} triggers; at most ${caps.triggersPerLevel} are allowed per level (user, project or tenant)`;
  }
  return undefined;
}

/** What the level cap does to a listing: the skills that keep their triggers, and the others. */
export interface LevelCapOutcome<T> {
  readonly items: T[];
  /** Skills whose triggers were dropped, with the message of the problem. */
  readonly dropped: { readonly skill: T; readonly message: string }[];
}

/**
 * Applies the level caps to a listing (one skill per name, sorted by name): per `source`, skills
 * keep their triggers in name order while the level's running count stays within the caps; a
 * skill that would pass them keeps everything but its triggers. `exempt` levels (the bundled
 * skills, which ship with the service) are not counted.
 */
export function capLevelTriggers<T extends { readonly name: string; readonly source: string; readonly triggers: readonly CountedTrigger[] }>(
  items: readonly T[],
  caps: TriggerLevelCaps,
  exempt: (source: string) => boolean,
): LevelCapOutcome<T> {
  const counts = new Map<string, TriggerCount>();
  const dropped: { skill: T; message: string }[] = [];
  const kept = items.map((skill) => {
    if (skill.triggers.length === 0 || exempt(skill.source)) return skill;
    const next = addCounts(counts.get(skill.source) ?? { triggers: 0, patterns: 0 }, countTriggers(skill.triggers));
    const exceeded = levelCapExceeded(next, caps);
    if (exceeded === undefined) {
      counts.set(skill.source, next);
      return skill;
    }
    dropped.push({ skill, message: `triggers ignored: ${exceeded}` });
    return { ...skill, triggers: [] };
  });
  return { items: kept, dropped };
}
