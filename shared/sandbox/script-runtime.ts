import type { HostFunction } from "./host-call.js";
import { SandboxError, SandboxMemoryExceeded, SandboxOutputTooLarge, SandboxTimeout } from "./sandbox-errors.js";
import { getDefaultSandboxPool, type SandboxPool } from "./sandbox-pool.js";
import {
  ScriptDepthExceeded,
  ScriptError,
  ScriptFailure,
  ScriptMemoryExceeded,
  ScriptResultTooLarge,
  ScriptTimeout,
  type ScriptLogEntry,
  type ScriptLogLevel,
} from "./script-errors.js";

/**
 * The `vance` object of a script, as a tree: functions become host functions (called
 * synchronously by the guest, run on the host), everything else is copied in as JSON data
 * (e.g. `{ guard: { task, output, continueWith } }`). `log` is reserved: runScript provides
 * `vance.log(level, msg)` itself.
 */
export interface ScriptBindings {
  readonly [name: string]: HostFunction | ScriptBindings | string | number | boolean | null | undefined | readonly unknown[];
}

export interface ScriptLimits {
  /** Wall-clock deadline for the whole run, host calls included. */
  timeoutMs?: number;
  memoryBytes?: number;
  /** Cap on the result serialized as JSON (UTF-8 bytes). */
  maxResultBytes?: number;
  /** Cap on one host call (never past the deadline). */
  hostCallTimeoutMs?: number;
  maxHostCalls?: number;
  maxHostArgsBytes?: number;
  maxHostResultBytes?: number;
  /** Log entries kept; later ones are counted in `droppedLogs`. */
  maxLogEntries?: number;
  /** Each log message is cut to this many characters. */
  maxLogMessageChars?: number;
}

export interface RunScriptRequest {
  source: string;
  /** The script's `args` global (JSON data). Default: {}. */
  args?: unknown;
  bindings?: ScriptBindings;
  limits?: ScriptLimits;
  /**
   * How many scripts enclose this run: 0 at top level; a host function that runs a script
   * passes its HostCallContext.depth + 1.
   */
  depth?: number;
  /** The deepest nesting allowed. Default 3: a script may run tools that run scripts three levels down. */
  maxDepth?: number;
  /** Pass HostCallContext.signal when running from inside a host call. */
  signal?: AbortSignal;
  /** Default: the process-wide pool. */
  pool?: SandboxPool;
  /** Whom the run is for: the pool serves tenants in turn (SandboxRequest.fairnessKey). */
  tenant?: string | undefined;
  /** Sees each kept log entry as it is written (structured log). */
  onLog?: (entry: ScriptLogEntry) => void;
  /** Sees each host function failure unsanitized (the script gets a safe message). */
  onHostError?: (path: string, error: unknown) => void;
}

export interface ScriptRun {
  /** The value of the script's last expression (JSON round-tripped; a promise is awaited). */
  result: unknown;
  logs: ScriptLogEntry[];
  droppedLogs: number;
}

const DEFAULT_LIMITS = {
  timeoutMs: 10_000,
  memoryBytes: 32 * 1024 * 1024,
  maxResultBytes: 1024 * 1024,
  maxLogEntries: 100,
  maxLogMessageChars: 2_000,
};

export const DEFAULT_MAX_SCRIPT_DEPTH = 3;

const LEVELS = new Set<string>(["debug", "info", "warn", "error"]);

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** Splits the binding tree into the JSON part (a guest global) and host functions by path. */
const splitBindings = (bindings: ScriptBindings, prefix: string, functions: Record<string, HostFunction>): Record<string, unknown> => {
  const json: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(bindings)) {
    if (typeof value === "function") functions[`${prefix}.${name}`] = value as HostFunction;
    else if (isPlainObject(value)) json[name] = splitBindings(value as ScriptBindings, `${prefix}.${name}`, functions);
    else json[name] = value;
  }
  return json;
};

const textOf = (value: unknown): string => {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};

class LogCollector {
  readonly logs: ScriptLogEntry[] = [];
  dropped = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
    private readonly onLog: ((entry: ScriptLogEntry) => void) | undefined,
  ) {}

  /** `vance.log(level, msg)`; a single argument is an info message. */
  readonly log: HostFunction = (args) => {
    const [first, second] = args;
    const [level, message] = args.length >= 2 ? [first, second] : ["info", first];
    if (this.logs.length >= this.maxEntries) {
      this.dropped += 1;
      return undefined;
    }
    const text = textOf(message);
    const entry: ScriptLogEntry = {
      level: typeof level === "string" && LEVELS.has(level.toLowerCase()) ? (level.toLowerCase() as ScriptLogLevel) : "info",
      message: text.length > this.maxChars ? `${text.slice(0, this.maxChars)}…` : text,
    };
    this.logs.push(entry);
    this.onLog?.(entry);
    return undefined;
  };
}

const toScriptError = (error: unknown, limits: { timeoutMs: number; maxResultBytes: number }): unknown => {
  if (error instanceof SandboxTimeout) return new ScriptTimeout(limits.timeoutMs, { cause: error });
  if (error instanceof SandboxMemoryExceeded) return new ScriptMemoryExceeded("heap", { cause: error });
  if (error instanceof SandboxOutputTooLarge) return new ScriptResultTooLarge(limits.maxResultBytes, { cause: error });
  if (error instanceof SandboxError) {
    if (error.guestErrorName === "InternalError" && /stack overflow/i.test(error.message))
      return new ScriptMemoryExceeded("stack", { cause: error });
    return new ScriptError(error.message, error.guestErrorName, error.line, { cause: error });
  }
  // SandboxUnavailable, SandboxAborted: infrastructure, not the script's doing.
  return error;
};

/**
 * Runs a guard or skill script (spec §13.4) in a fresh sandbox context: `args` and `vance` are
 * its globals, host functions in `bindings` are callable synchronously, and the result is the
 * value of the last expression (a top-level `return` is a SyntaxError, as in the spec).
 * Rejects with ScriptError / ScriptTimeout / ScriptMemoryExceeded / ScriptResultTooLarge /
 * ScriptDepthExceeded (each carrying the logs written so far) or a sandbox infrastructure error.
 */
export async function runScript(request: RunScriptRequest): Promise<ScriptRun> {
  const depth = Math.max(0, Math.floor(request.depth ?? 0));
  const maxDepth = request.maxDepth ?? DEFAULT_MAX_SCRIPT_DEPTH;
  if (depth > maxDepth) throw new ScriptDepthExceeded(maxDepth);
  const bindings = request.bindings ?? {};
  if (Object.hasOwn(bindings, "log")) throw new TypeError("script bindings must not define 'log': runScript provides vance.log");
  const limits = { ...DEFAULT_LIMITS, ...definedOnly(request.limits ?? {}) };
  const collector = new LogCollector(limits.maxLogEntries, limits.maxLogMessageChars, request.onLog);
  const hostFunctions: Record<string, HostFunction> = {};
  const vance = splitBindings(bindings, "vance", hostFunctions);
  hostFunctions["vance.log"] = collector.log;
  const pool = request.pool ?? getDefaultSandboxPool();
  try {
    const result = await pool.evaluate({
      code: request.source,
      globals: { args: request.args ?? {}, vance },
      hostFunctions,
      timeoutMs: limits.timeoutMs,
      memoryBytes: limits.memoryBytes,
      maxOutputBytes: limits.maxResultBytes,
      depth,
      hostCallTimeoutMs: limits.hostCallTimeoutMs,
      maxHostCalls: limits.maxHostCalls,
      maxHostArgsBytes: limits.maxHostArgsBytes,
      maxHostResultBytes: limits.maxHostResultBytes,
      signal: request.signal,
      onHostError: request.onHostError,
      fairnessKey: request.tenant,
    });
    return { result, logs: collector.logs, droppedLogs: collector.dropped };
  } catch (error) {
    const mapped = toScriptError(error, limits);
    if (mapped instanceof ScriptFailure) mapped.logs = collector.logs;
    throw mapped;
  }
}

const definedOnly = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
