import { SkillsError } from "../errors.js";

/** DynamoDB kept refusing some deletes; what is left expires by TTL. */
export class ConnectionCleanupIncomplete extends SkillsError {
  readonly code = "INTERNAL";
  constructor(
    readonly remaining: number,
    readonly attempts: number,
  ) {
    super(`${remaining} connection items could not be deleted after ${attempts} attempts`);
  }
}

/** Pushing to one or more connections failed for a reason other than the connection being gone. */
export class ConnectionPushFailed extends SkillsError {
  readonly code = "INTERNAL";
  constructor(readonly failures: readonly { connectionId: string; error: unknown }[]) {
    super(`Could not push to ${failures.length} connection(s)`, { cause: failures[0]?.error });
  }
}

/** A connection may hold only so many subscriptions (MAX_SUBSCRIPTIONS_PER_CONNECTION). */
export class TooManySubscriptions extends SkillsError {
  readonly code = "INVALID_REQUEST";
  constructor(readonly limit: number) {
    super(`A connection may subscribe to at most ${limit} processes`);
  }
}
