import { PayloadTooLarge } from "../errors.js";

/**
 * One cap for a composed turn and for the composition preview. A turn must fit the request record
 * that carries it back to the caller (one DynamoDB item, < 400 KB); a preview is answered
 * directly and would otherwise only stop at Lambda's 6 MB response limit (a 5 MB preview was
 * seen), so both stop here. Refused before anything is written, so no pending message is lost.
 */
export const MAX_TURN_BYTES = 300 * 1024;

/** API.md 413 PAYLOAD_TOO_LARGE: what the composition would answer is larger than the cap. */
export class TurnTooLarge extends PayloadTooLarge {
  constructor(readonly processId: string, readonly bytes: number, readonly preview = false) {
    super(
      `The ${preview ? "composition preview" : "turn"} of process '${processId}' would be ${bytes} bytes (limit ${MAX_TURN_BYTES}); ` +
        "clear a skill or shorten its inline reference docs",
      MAX_TURN_BYTES,
    );
  }
}

/** Measures the turn as it travels (JSON, UTF-8) and refuses it past MAX_TURN_BYTES. */
export function assertTurnFits<T>(processId: string, turn: T, preview = false): T {
  const bytes = Buffer.byteLength(JSON.stringify(turn), "utf8");
  if (bytes > MAX_TURN_BYTES) throw new TurnTooLarge(processId, bytes, preview);
  return turn;
}
