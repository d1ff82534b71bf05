/** How a skill became active (issue 4: activations by name and path). */
export type SkillActivationPath = "explicit" | "trigger" | "model" | "recipe" | "spawn";

/** One skill a request made active, as the domain code that activated it reports it. */
export interface SkillActivation {
  readonly name: string;
  readonly path: SkillActivationPath;
}

/**
 * Where activations are counted (Powertools Metrics on Lambda). Told once per applied request,
 * after its write is stored; never for a redelivery answered from the stored state. Must not
 * throw — callers guard it anyway, since metrics never fail a request.
 */
export interface SkillActivationSink {
  skillActivated(name: string, path: SkillActivationPath): void;
}

export const NO_ACTIVATION_METRICS: SkillActivationSink = { skillActivated: () => undefined };

/** The recipe's `defaultActiveSkills` of a process that was just created (spec §7). */
export const recipeActivations = (activeSkills: readonly { name: string; fromRecipe: boolean }[]): SkillActivation[] =>
  activeSkills.filter((s) => s.fromRecipe).map((s) => ({ name: s.name, path: "recipe" }));

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
