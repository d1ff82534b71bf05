import { InvalidRequest, SkillsError } from "../errors.js";

/**
 * A lane message that cannot be (de)serialized or does not match the schema. On the worker
 * side it marks a poison message: retrying cannot fix it, but the record is still reported
 * as failed so SQS parks it in the DLQ after maxReceiveCount instead of losing it.
 */
export class LaneMessageMalformed extends SkillsError {
  readonly code = "INVALID_REQUEST";
  constructor(
    readonly reason: string,
    readonly issues: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(`Malformed lane message: ${reason}${issues.length > 0 ? ` (${issues.join("; ")})` : ""}`, options);
  }
}

/** The encoded message exceeds what one SQS message (and one Lambda record) can carry. */
export class LaneMessageTooLarge extends SkillsError {
  readonly code = "INVALID_REQUEST";
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`Lane message is ${bytes} bytes, the limit is ${limit}`);
  }
}

/**
 * A record arrived in a message group that is not the lane of the process it names.
 * Serialization per process only holds if every message of a process travels in its group,
 * so such a record is treated as poison rather than applied out of order.
 */
export class LaneGroupMismatch extends SkillsError {
  readonly code = "INTERNAL";
  constructor(
    readonly expectedGroupId: string,
    readonly actualGroupId: string,
  ) {
    super(`Lane message for group '${expectedGroupId}' arrived in group '${actualGroupId}'`);
  }
}

/** Wiring mistake (e.g. a standard queue URL where a FIFO lane is required). */
export class LaneConfigurationError extends SkillsError {
  readonly code = "INTERNAL";
}

/** The local lane poller did not drain within the time a caller was willing to wait. */
export class LaneIdleTimeout extends SkillsError {
  readonly code = "INTERNAL";
  constructor(
    readonly timeoutMs: number,
    readonly state: Readonly<Record<string, number>>,
  ) {
    super(
      `Lane did not become idle within ${timeoutMs} ms (${Object.entries(state)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ")})`,
    );
  }
}

/**
 * The lane gave up on a request on the last delivery its queue allows, before applying it. It is
 * recorded FAILED, so a caller waiting for it gets an answer instead of a QUEUED record forever:
 * SERVICE_UNAVAILABLE when the last failure was a throttled or unreachable backing service (send
 * it again later, under a new requestId), INTERNAL otherwise.
 */
export class LaneRequestAbandoned extends SkillsError {
  readonly code: "SERVICE_UNAVAILABLE" | "INTERNAL";
  constructor(
    readonly requestId: string,
    readonly deliveries: number,
    transient: boolean,
  ) {
    super(
      `Request '${requestId.slice(0, 256)}' was not applied: the lane gave up after ${deliveries} deliveries` +
        (transient ? " because a backing service was unavailable; send it again later" : " because of an internal error"),
    );
    this.code = transient ? "SERVICE_UNAVAILABLE" : "INTERNAL";
  }
}

/**
 * A lane payload that does not match the schema of its kind. `kind` is a LaneMessageKind, typed
 * as a string here because lane-message.ts imports this file.
 */
export class InvalidLanePayload extends InvalidRequest {
  constructor(
    readonly kind: string,
    readonly issues: readonly string[],
  ) {
    super(`Invalid ${kind} request: ${issues.join("; ")}`);
  }
}
