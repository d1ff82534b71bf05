import { SkillsError } from "../errors.js";

/** A half-configured endpoint is an operator mistake: fail at start-up, not on the first guard. */
export class LlmConfigurationError extends SkillsError {
  readonly code = "INTERNAL";
}

/** The endpoint's reply is larger than the adapter reads (maxResponseBytes); the call counts as failed. */
export class ResponseTooLarge extends Error {}
