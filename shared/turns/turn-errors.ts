import { InvalidRequest } from "../errors.js";

/**
 * A composed turn must fit the request record that carries it back to the caller (one DynamoDB
 * item, < 400 KB). Refused before anything is written, so no pending message is lost.
 */
export const MAX_TURN_BYTES = 300 * 1024;

export class TurnTooLarge extends InvalidRequest {
  constructor(readonly processId: string, readonly bytes: number) {
    super(
      `The turn of process '${processId}' would be ${bytes} bytes (limit ${MAX_TURN_BYTES}); ` +
        "clear a skill or shorten its inline reference docs",
    );
  }
}
