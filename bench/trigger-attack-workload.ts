import type { SkillTrigger } from "../shared/skills/skill-frontmatter.js";

/**
 * The trigger attack of issue 11: many skills with many distinct, individually valid PATTERN
 * triggers whose lazy DFAs grow with the input (`<letter>[a-h]{n}[0-9]{2,m}` tracks every
 * position since the letter: up to 2^n states), and a long message of those letters that keeps
 * every pattern's literal present (so the prefilter rules nothing out) but never holds two digits
 * in a row (so no pattern fires and every regex runs to the end).
 */
export function hostilePattern(i: number): string {
  return `${"abcdefgh"[i % 8]}[a-h]{${10 + ((i >> 3) % 16)}}[0-9]{2,${2 + (i >> 7)}}`;
}

export interface HostileSkill {
  readonly name: string;
  readonly enabled: boolean;
  readonly triggers: readonly SkillTrigger[];
}

export function hostileSkills(skills: number, patternsPerSkill: number): HostileSkill[] {
  return Array.from({ length: skills }, (_, s) => ({
    name: `bomb-${String(s).padStart(3, "0")}`,
    enabled: true,
    triggers: Array.from({ length: patternsPerSkill }, (_, t) => ({ type: "PATTERN" as const, pattern: hostilePattern(s * patternsPerSkill + t) })),
  }));
}

/** `length` characters of a–h with a single digit every 40th position (deterministic). */
export function hostileMessage(length = 32 * 1024): string {
  let state = 11;
  const random = (): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
  return Array.from({ length }, (_, i) => (i % 40 === 39 ? String(i % 10) : "abcdefgh"[Math.floor(random() * 8)])).join("");
}
