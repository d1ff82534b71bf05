import type { SkillTrigger } from "../../shared/skills/skill-frontmatter.js";
import { capTriggerInput, type TriggerCandidate } from "../../shared/skills/triggers/skill-trigger-index.js";
import {
  compileTriggerPattern,
  prepareTriggerInput,
  type TriggerInput,
  type TriggerPatternCache,
} from "../../shared/skills/triggers/skill-trigger-pattern.js";

/**
 * The matcher as it was before the index: every trigger of every candidate in turn (spec §4a),
 * kept verbatim as the oracle. Only the input cap is shared with the index.
 */
export function referenceMatch(candidates: readonly TriggerCandidate[], input: string, cache: TriggerPatternCache): string[] {
  const prepared = prepareTriggerInput(capTriggerInput(input));
  const split = (lowered: string): string[] => lowered.split(/[^a-z0-9]+/).filter((token) => token.length >= 2);
  const list = split(prepared.lowered);
  const set = new Set(list);
  const containsSequence = (sequence: readonly string[]): boolean => {
    const [first] = sequence;
    if (first === undefined || !sequence.every((token) => set.has(token))) return false;
    return list.some((token, start) => token === first && sequence.every((t, offset) => list[start + offset] === t));
  };
  const fires = (trigger: SkillTrigger, input: TriggerInput): boolean => {
    if (trigger.type === "PATTERN") {
      try {
        return compileTriggerPattern(trigger.pattern, cache).find(input);
      } catch {
        return false;
      }
    }
    const total = trigger.keywords.length;
    if (total === 0) return false;
    let present = 0;
    for (const keyword of trigger.keywords) {
      if (containsSequence(split(keyword.toLowerCase()))) present += 1;
      if (present * 2 >= total) return true;
    }
    return false;
  };
  return candidates.filter((candidate) => candidate.triggers.some((trigger) => fires(trigger, prepared))).map((c) => c.name);
}
