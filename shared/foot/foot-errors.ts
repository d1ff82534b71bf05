import { InvalidRequest } from "../errors.js";
import { ScriptFailure } from "../sandbox/script-errors.js";
import type { ScriptLogEntry } from "../sandbox/script-errors.js";

/**
 * Failures of a FOOT script (spec §13.5). Like the BRAIN script failures they are the skill
 * author's or the client's doing, not the service's (ScriptFailure: INVALID_REQUEST, with the
 * logs the client reported).
 */

/** No answer from the client within the deadline; a late answer is refused. */
export class FootScriptTimeout extends ScriptFailure {
  constructor(readonly timeoutMs: number) {
    super(`FOOT script got no answer from the client within ${timeoutMs} ms`);
  }
}

/** The client evaluated the script and reported an error. */
export class FootScriptFailed extends ScriptFailure {
  constructor(
    message: string,
    readonly clientCode: string,
    logs: ScriptLogEntry[] = [],
  ) {
    super(`FOOT script failed on the client: ${message}`);
    this.logs = logs;
  }
}

/** The execute frame (source + args) does not fit one WebSocket message. */
export class FootScriptTooLarge extends ScriptFailure {
  constructor(
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(`FOOT script and args take ${bytes} bytes; one WebSocket message holds at most ${maxBytes}`);
  }
}

/** The client gave up waiting for the service (connect, subscribe). */
export class FootClientError extends Error {}

/** A `vance.fs.*` call the client refuses; the guest sees this message (a non-INTERNAL SkillsError passes the sandbox sanitizer). */
export class FootFsRefused extends InvalidRequest {}
