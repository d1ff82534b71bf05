import { SkillsError } from "../errors.js";

export class NameTaken extends SkillsError {
  readonly code = "NAME_TAKEN";
  constructor(readonly sessionId: string, readonly processName: string, readonly existingProcessId?: string) {
    super(`Process name '${processName}' is already used in session '${sessionId}'`);
  }
}

/** Also what another tenant's process looks like: tenants never learn of each other's ids. */
export class ProcessNotFound extends SkillsError {
  readonly code = "PROCESS_NOT_FOUND";
  constructor(readonly processId: string) {
    super(`Process '${processId}' not found`);
  }
}

/** Every retry of an optimistic write lost the race; nothing was written by this call. */
export class ConcurrentUpdateConflict extends SkillsError {
  readonly code = "INTERNAL";
  constructor(readonly processId: string, readonly attempts: number) {
    super(`Process '${processId}' kept changing; gave up after ${attempts} attempts`);
  }
}

/** The write would exceed what one DynamoDB item holds; the domain should have capped it earlier. */
export class ProcessTooLarge extends SkillsError {
  readonly code = "INVALID_REQUEST";
  constructor(readonly processId: string, readonly bytes: number, readonly limitBytes: number) {
    super(`Process '${processId}' would grow to ${bytes} bytes (limit ${limitBytes})`);
  }
}

/** A process that fails the schema: a bug in a mutation, or a corrupt item. */
export class ProcessStateInvalid extends SkillsError {
  readonly code = "INTERNAL";
  constructor(readonly processId: string, readonly issues: string) {
    super(`Process '${processId}' is not valid: ${issues}`);
  }
}

export class RequestNotFound extends SkillsError {
  readonly code = "REQUEST_NOT_FOUND";
  constructor(readonly requestId: string) {
    super(`Request '${requestId}' not found`);
  }
}

/**
 * The process could not be read right now (DynamoDB kept leaving its key unprocessed under
 * throttling). Transient: `retryable` and `$retryable` (the SDK's own marker) make the lane
 * redeliver the message and the HTTP surface answer 503, as for a throttled GetItem.
 */
export class ProcessUnavailable extends SkillsError {
  readonly code = "INTERNAL";
  readonly retryable = true;
  readonly $retryable = true;

  constructor(readonly processId: string, readonly attempts: number) {
    super(`Process '${processId}' could not be read after ${attempts} attempts; retry shortly`);
  }
}
