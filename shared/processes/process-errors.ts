import { SkillsError } from "../errors.js";

export class NameTaken extends SkillsError {
  readonly code = "NAME_TAKEN";
  constructor(
    readonly sessionId: string,
    readonly processName: string,
    readonly existingProcessId?: string,
  ) {
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
  constructor(
    readonly processId: string,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(`Process '${processId}' kept changing; gave up after ${attempts} attempts`, options);
  }
}

/**
 * A conditional write of a process found another state stored: the version moved on (another
 * writer won the race), the process exists already (create) or is gone. Raised by the store
 * adapters and handled by BaseProcessStore, which re-applies on `stored` instead of reading the
 * item again; it only escapes a store through a bug.
 *
 * `stored` is the item as it was when the condition failed (DynamoDB returns it with the failure
 * when asked with ReturnValuesOnConditionCheckFailure ALL_OLD), not validated yet. undefined when
 * the failure carried no item: none is stored, or the endpoint does not return it (dynalite 4.0.0
 * ignores the parameter) — then the store reads the item.
 */
export class ProcessVersionConflict extends SkillsError {
  readonly code = "INTERNAL";
  constructor(
    readonly processId: string,
    readonly stored: unknown,
    options?: { cause?: unknown },
  ) {
    super(`Process '${processId}' changed under a conditional write`, options);
  }
}

/** The write would exceed what one DynamoDB item holds; the domain should have capped it earlier. */
export class ProcessTooLarge extends SkillsError {
  readonly code = "INVALID_REQUEST";
  constructor(
    readonly processId: string,
    readonly bytes: number,
    readonly limitBytes: number,
  ) {
    super(`Process '${processId}' would grow to ${bytes} bytes (limit ${limitBytes})`);
  }
}

/** A process that fails the schema: a bug in a mutation, or a corrupt item. */
export class ProcessStateInvalid extends SkillsError {
  readonly code = "INTERNAL";
  constructor(
    readonly processId: string,
    readonly issues: string,
  ) {
    super(`Process '${processId}' is not valid: ${issues}`);
  }
}

/** API.md: a process whose status is DONE refuses steering and turns. */
export class ProcessEnded extends SkillsError {
  readonly code = "PROCESS_ENDED";
  constructor(readonly processId: string) {
    super(`Process '${processId.slice(0, 80)}' has ended (status DONE); it takes no more steering or turns`);
  }
}

/** API.md: a requestId reused on its process with another kind or payload is never answered with the first request's result. */
export class RequestConflict extends SkillsError {
  readonly code = "REQUEST_CONFLICT";
  constructor(
    readonly requestId: string,
    reason: string,
  ) {
    super(`Request '${requestId.slice(0, 80)}' was already used ${reason}; choose a new requestId`);
  }
}

export class RequestNotFound extends SkillsError {
  readonly code = "REQUEST_NOT_FOUND";
  constructor(
    readonly requestId: string,
    message = `Request '${requestId}' not found`,
  ) {
    super(message);
  }
}

/** API.md: a turn is kept with its compose request; unknown, not composed (yet) or expired is REQUEST_NOT_FOUND. */
export class TurnNotFound extends RequestNotFound {
  constructor(readonly turnId: string) {
    super(turnId, `Turn '${turnId}' not found: it is unknown, was not composed, or is older than its request record (24 h)`);
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

  constructor(
    readonly processId: string,
    readonly attempts: number,
  ) {
    super(`Process '${processId}' could not be read after ${attempts} attempts; retry shortly`);
  }
}
