import { InvalidRequest } from "../errors.js";

/**
 * Thrown by an engine command handler for arguments it cannot accept; the dispatcher turns it
 * into the typed InvalidEngineCommand that names the verb and the skill, so it never reaches a
 * caller itself.
 */
export class EngineCommandRejected extends InvalidRequest {}

/** Appending would break a cap of the process's pending messages (steering-limits.ts). */
export class PendingLimitExceeded extends InvalidRequest {
  constructor(
    readonly processId: string,
    reason: string,
  ) {
    super(`Process '${processId}' cannot take more pending messages: ${reason}`);
  }
}
