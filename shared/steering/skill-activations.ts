import type { SkillScope } from "../skills/skill-scope.js";

/** How a skill became active (issue 4: activations by name and path). */
export type SkillActivationPath = "explicit" | "trigger" | "model" | "recipe" | "spawn";

/** One skill a request made active, as the domain code that activated it reports it. */
export interface SkillActivation {
  readonly name: string;
  readonly path: SkillActivationPath;
  /** The level the skill resolved from, where the activating code knows it (usage counters, issue 17). */
  readonly source?: SkillScope | undefined;
}

/**
 * Where activations are counted (Powertools Metrics on Lambda). Told once per applied request,
 * after its write is stored; never for a redelivery answered from the stored state. Must not
 * throw — callers guard it anyway, since metrics never fail a request.
 */
export interface SkillActivationSink {
  skillActivated(name: string, path: SkillActivationPath): void;
  /** An activation refused with a domain error code (SKILL_NOT_ALLOWED, SKILL_NOT_FOUND, …). */
  skillRefused?(name: string, code: string): void;
}

export const NO_ACTIVATION_METRICS: SkillActivationSink = { skillActivated: () => undefined };

/** The recipe's `defaultActiveSkills` of a process that was just created (spec §7). */
export const recipeActivations = (activeSkills: readonly { name: string; fromRecipe: boolean; resolvedFromScope?: SkillScope }[]): SkillActivation[] =>
  activeSkills.filter((s) => s.fromRecipe).map((s) => ({ name: s.name, path: "recipe", source: s.resolvedFromScope }));

/** Reports each activation; a sink that throws loses the data point, not the request. */
export function reportActivations(
  sink: SkillActivationSink | undefined,
  activations: readonly SkillActivation[] | undefined,
  onError?: (error: unknown) => void,
): void {
  if (!sink || !activations) return;
  for (const { name, path } of activations) {
    try {
      sink.skillActivated(name, path);
    } catch (error) {
      onError?.(error);
    }
  }
}
