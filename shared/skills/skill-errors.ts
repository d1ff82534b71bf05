import { PayloadTooLarge, SkillsError, TooManyRequests } from "../errors.js";

/** Failures of skill arguments and trigger patterns; the skill errors every area shares are in shared/errors.ts. */

/** A token is present but does not coerce to the declared type. */
export class SkillArgumentInvalid extends SkillsError {
  readonly code = "INVALID_REQUEST";
  constructor(
    readonly skillName: string,
    readonly argumentName: string,
    readonly reason: string,
  ) {
    super(`Skill '${skillName}' argument '${argumentName}' ${reason}`);
  }
}

/** The raw argument line is longer than `limit` characters (MAX_RAW_ARGUMENTS_LENGTH). */
export class SkillArgumentsTooLong extends SkillsError {
  readonly code = "INVALID_REQUEST";
  constructor(
    readonly skillName: string,
    readonly length: number,
    readonly limit: number,
  ) {
    super(`Skill '${skillName}' arguments are ${length} characters long; at most ${limit} are allowed`);
  }
}

/**
 * A skill's body with its arguments substituted would pass the render cap (API.md 413
 * PAYLOAD_TOO_LARGE): refused while it is built. A turn leaves the skill out with this message.
 */
export class SkillRenderTooLarge extends PayloadTooLarge {
  constructor(
    readonly skillName: string,
    limitBytes: number,
  ) {
    super(
      `Skill '${skillName}' would render to more than ${limitBytes} bytes with these arguments (each placeholder repeats them); shorten the arguments or use fewer placeholders`,
      limitBytes,
    );
  }
}

/** A render not started because the request's render budget was spent on other skills (retryable). */
export class RenderBudgetSpent extends TooManyRequests {
  constructor(message: string) {
    super(message, 1);
  }
}

/** Thrown by compileTriggerPattern; the loader should have rejected the pattern already. */
export class InvalidTriggerPattern extends SkillsError {
  readonly code = "INVALID_DOCUMENT";
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`Invalid trigger pattern: ${reason}`);
  }
}

/** `user-invocable: false` (Claude Code): only the model may activate the skill, never `/skill`. */
export class SkillNotUserInvocable extends SkillsError {
  readonly code = "SKILL_NOT_ALLOWED";
  constructor(readonly skillName: string) {
    super(`Skill '${skillName}' is not user-invocable: it sets user-invocable: false, so only the model may activate it`);
  }
}

/** `disable-model-invocation: true`: the skill is never in the catalog, so the model may not activate it. */
export class SkillNotModelInvocable extends SkillsError {
  readonly code = "SKILL_NOT_ALLOWED";
  constructor(readonly skillName: string) {
    super(`Skill '${skillName}' sets disable-model-invocation: true; only a user may activate it (it is never in the catalog)`);
  }
}
