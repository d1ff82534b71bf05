import type { SkillScope } from "../documents/cascade-scope.js";

/** How a skill became active (issue 4: activations by name and path). */
export type SkillActivationPath = "explicit" | "trigger" | "model" | "recipe" | "spawn";

/** One skill a request made active, as the domain code that activated it reports it. */
export interface SkillActivation {
  readonly name: string;
  readonly path: SkillActivationPath;
  /** The level the skill resolved from, where the activating code knows it (usage counters, issue 17). */
  readonly source?: SkillScope | undefined;
}

/** An activation a request tried and could not apply, with the domain error code that refused it. */
export interface SkillRefusal {
  readonly name: string;
  readonly path: SkillActivationPath;
  readonly code: string;
  /** The level of the refused skill where the refusing code resolved it. */
  readonly source?: SkillScope | undefined;
}

/**
 * Where activations are counted (Powertools Metrics on Lambda). Told once per applied request,
 * after its write is stored; never for a redelivery answered from the stored state. Must not
 * throw — callers guard it anyway, since metrics never fail a request.
 */
export interface SkillActivationSink {
  skillActivated(name: string, path: SkillActivationPath, where?: ActivationWhere): void;
  /** An activation refused with a domain error code (SKILL_NOT_ALLOWED, SKILL_NOT_FOUND, …). */
  skillRefused?(name: string, code: string, where?: ActivationWhere): void;
}

/**
 * Where an activation happened: not metric dimensions (one time series per tenant and project
 * would multiply the cost of every metric) but searchable fields of the same EMF line.
 */
export interface ActivationWhere {
  readonly tenant: string;
  readonly projectId?: string | undefined;
  readonly source?: SkillScope | null | undefined;
}

export const NO_ACTIVATION_METRICS: SkillActivationSink = { skillActivated: () => undefined };

/** The recipe's `defaultActiveSkills` of a process that was just created (spec §7). */
export const recipeActivations = (
  activeSkills: readonly { name: string; fromRecipe: boolean; resolvedFromScope?: SkillScope }[],
): SkillActivation[] =>
  activeSkills.filter((s) => s.fromRecipe).map((s) => ({ name: s.name, path: "recipe", source: s.resolvedFromScope }));

/** Reports each activation; a sink that throws loses the data point, not the request. */
export function reportActivations(
  sink: SkillActivationSink | undefined,
  activations: readonly SkillActivation[] | undefined,
  onError?: (error: unknown) => void,
  where?: { tenant: string; projectId?: string | undefined },
): void {
  if (!sink || !activations) return;
  for (const { name, path, source } of activations) {
    try {
      sink.skillActivated(name, path, where && { ...where, source });
    } catch (error) {
      onError?.(error);
    }
  }
}
