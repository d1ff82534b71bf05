import { MAX_FOOT_LOG_ENTRIES } from "../../contract/limits.js";
import { FootLogEntry } from "../../contract/foot-log.js";
import type { ScriptLogEntry } from "../sandbox/script-errors.js";

/**
 * The port through which a `target: FOOT` script (spec §13.5) reaches the user's client. The
 * script runner owns it; FootRouter (shared/foot/) is the WebSocket implementation the wiring
 * passes in, so neither the runner nor the frame schemas depend on the router.
 */
export interface FootScriptRequest {
  tenant: string;
  processId: string;
  /** The process's user: only their own connections may run the script (API.md "Processes belong to their user"). */
  owner: string | undefined;
  skillName: string;
  scriptName: string;
  args: Record<string, unknown>;
  source: string;
  /** Aborts the wait (the enclosing script or request gave up). */
  signal?: AbortSignal | undefined;
}

/** `routed: false`: no subscribed client took the frame; the caller answers the spec's error string. */
export type FootScriptOutcome = { routed: false } | { routed: true; result: unknown; logs: ScriptLogEntry[] };

export interface FootPort {
  execute(request: FootScriptRequest): Promise<FootScriptOutcome>;
}

/** A log line a client sends back with its answer (the contract's), as the frame and the invocation store accept it. */
export { FootLogEntry, MAX_FOOT_LOG_ENTRIES };
