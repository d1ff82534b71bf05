import { Buffer } from "node:buffer";
import { SkillsError } from "../errors.js";
import { HostCallTimedOut } from "./sandbox-errors.js";

/** What a host function learns about the call besides its arguments. */
export interface HostCallContext {
  /** The guest path it was called under, e.g. "vance.tool". */
  path: string;
  /**
   * How many script evaluations enclose this call (0: called from a top-level evaluation).
   * A host function that runs another script passes `depth + 1` on, so the runner can refuse
   * runaway re-entrancy (see runScript's maxDepth).
   */
  depth: number;
  /** Aborted when the call times out or its evaluation ends; pass it to I/O and nested evaluations. */
  signal: AbortSignal;
}

/**
 * A function the guest calls synchronously. It runs on the host's main thread and may do I/O.
 * `args` is the guest's argument list after a JSON round trip (JSON-only, `__proto__` keys
 * dropped); the return value goes back as JSON (`undefined` stays undefined). A thrown
 * SkillsError whose code is not INTERNAL reaches the guest with its message and code; anything
 * else becomes a generic "host call failed".
 */
export type HostFunction = (args: unknown[], call: HostCallContext) => unknown;

/** Guest error codes for failures of the bridge itself (the guest sees them as `error.code`). */
export type HostCallFailureCode =
  "HOST_CALL_FAILED" | "HOST_CALL_TIMEOUT" | "HOST_CALL_LIMIT" | "HOST_ARGS_TOO_LARGE" | "HOST_RESULT_TOO_LARGE";

const SEGMENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const FORBIDDEN_SEGMENTS = new Set(["__proto__", "constructor", "prototype"]);
const MAX_GUEST_MESSAGE_CHARS = 1_000;

/** Why a set of guest paths cannot be installed, or undefined when it can. */
export const hostPathProblem = (paths: readonly string[]): string | undefined => {
  const sorted = [...paths].sort();
  for (const [i, path] of sorted.entries()) {
    const segments = path.split(".");
    if (segments.some((segment) => !SEGMENT.test(segment) || FORBIDDEN_SEGMENTS.has(segment)))
      return `invalid host function path '${path}'`;
    const next = sorted[i + 1];
    // "vance.tool" and "vance.tool.x" would need vance.tool to be a function and an object at once.
    if (next !== undefined && next.startsWith(`${path}.`)) return `host function path '${path}' is a prefix of '${next}'`;
  }
  return undefined;
};

/** `__proto__` keys would become prototypes if the host function ever Object.assign()s the args. */
const dropProtoKeys = (key: string, value: unknown): unknown => (key === "__proto__" ? undefined : value);

/** The guest bridge always sends an argument list; anything else is a broken bridge. */
export const decodeHostArgs = (argsJson: string): unknown[] => {
  const parsed: unknown = JSON.parse(argsJson, dropProtoKeys);
  if (!Array.isArray(parsed)) throw new TypeError("host call arguments are not a list");
  return parsed;
};

export const encodeHostFailure = (code: HostCallFailureCode | string, message: string): string => `e${JSON.stringify({ code, message })}`;

/** The value as the guest bridge reads it back (see HostReply in sandbox-protocol.ts). */
export const encodeHostValue = (path: string, value: unknown, maxBytes: number): string => {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return encodeHostFailure("HOST_CALL_FAILED", `host call '${path}' returned a value that is not JSON data`);
  }
  if (json === undefined) return "u";
  if (Buffer.byteLength(json, "utf8") > maxBytes)
    return encodeHostFailure("HOST_RESULT_TOO_LARGE", `host call '${path}' result exceeds ${maxBytes} bytes`);
  return `v${json}`;
};

/**
 * What the guest may learn about a failed host call. Typed domain errors are written for
 * callers and carry no stack or host path; INTERNAL ones (sandbox/infra failures) can quote
 * host details (a worker's module path), so they get the generic text like any other error.
 */
export const encodeHostError = (path: string, error: unknown): string => {
  if (error instanceof HostCallTimedOut) return encodeHostFailure("HOST_CALL_TIMEOUT", error.message);
  if (error instanceof SkillsError && error.code !== "INTERNAL") {
    const message = error.message.length > MAX_GUEST_MESSAGE_CHARS ? `${error.message.slice(0, MAX_GUEST_MESSAGE_CHARS)}…` : error.message;
    return encodeHostFailure(error.code, message);
  }
  return encodeHostFailure("HOST_CALL_FAILED", `host call '${path}' failed`);
};
