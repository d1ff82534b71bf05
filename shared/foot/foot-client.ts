import { randomUUID } from "node:crypto";
import { WebSocket } from "ws";
import * as z from "zod/mini";
import "../../contract/locale.js";
import { SkillsError } from "../errors.js";
import type { SandboxPool } from "../sandbox/sandbox-pool.js";
import { ScriptFailure } from "../sandbox/script-errors.js";
import { runScript } from "../sandbox/script-runtime.js";
import type { ScriptLimits } from "../sandbox/script-runtime.js";
import { FootClientError } from "./foot-errors.js";
import { FootFileSystem } from "./foot-fs.js";
import type { FootFsLimits } from "./foot-fs.js";

/**
 * The reference Foot client (spec §13.3–§13.5), for the CLI and the tests: a WebSocket
 * connection that subscribes to processes and evaluates the `target: FOOT` scripts the service
 * sends, each in a fresh QuickJS context of its own sandbox, with `args`, `vance.log` and
 * `vance.fs.*` scoped to one working directory (foot-fs.ts), answering with
 * `process-skill-script-result`. `vance.exec` and client tools are not offered.
 */
interface FootClientOptions {
  /** The WebSocket URL, e.g. `ws://127.0.0.1:3000/ws`; the token is added as `?token=`. */
  url: string;
  token: string;
  /** The only part of the local filesystem scripts may touch. */
  workDir: string;
  /** Per script. Default: 8 s (the service waits 10 s), 32 MiB, a result that fits one frame. */
  limits?: ScriptLimits;
  fsLimits?: Partial<FootFsLimits>;
  /** Default: the process-wide sandbox pool. */
  pool?: SandboxPool;
  /** Every frame the client receives, also the ones it handles itself. */
  onFrame?: (frame: Record<string, unknown>) => void;
  /** Frames it cannot read or answer (the connection stays open). */
  onError?: (error: unknown) => void;
  /** How long connect() and subscribe() wait. Default 5 s. */
  timeoutMs?: number;
}

const ExecuteFrame = z.object({
  type: z.literal("process-skill-script-execute"),
  invocationId: z.string().check(z.minLength(1), z.maxLength(256)),
  processId: z.optional(z.string()),
  skillName: z.string(),
  scriptName: z.string(),
  args: z.record(z.string(), z.unknown()),
  source: z.string(),
});

/** The service takes one WebSocket message of at most 128 000 bytes. */
const MAX_ANSWER_BYTES = 128_000;

const DEFAULT_LIMITS: ScriptLimits = {
  timeoutMs: 8_000,
  memoryBytes: 32 * 1024 * 1024,
  maxResultBytes: 100_000,
  maxLogEntries: 50,
  maxLogMessageChars: 1_000,
};

type Waiter = { match: (frame: Record<string, unknown>) => boolean; resolve: (frame: Record<string, unknown>) => void };

export class FootClient {
  private readonly fs: FootFileSystem;
  private readonly limits: ScriptLimits;
  private readonly waiters = new Set<Waiter>();
  private readonly running = new Set<Promise<void>>();
  private answered = 0;

  private constructor(
    private readonly socket: WebSocket,
    private readonly options: FootClientOptions,
  ) {
    this.fs = new FootFileSystem(options.workDir, options.fsLimits);
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    socket.on("message", (data, isBinary) => {
      if (!isBinary) this.receive(data.toString());
    });
  }

  static connect(options: FootClientOptions): Promise<FootClient> {
    const url = `${options.url}${options.url.includes("?") ? "&" : "?"}token=${encodeURIComponent(options.token)}`;
    const socket = new WebSocket(url);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.terminate();
        reject(new FootClientError("The WebSocket connection did not open in time"));
      }, options.timeoutMs ?? 5_000);
      socket.once("open", () => {
        clearTimeout(timer);
        socket.on("error", (error) => options.onError?.(error));
        resolve(new FootClient(socket, options));
      });
      socket.once("unexpected-response", (_request, response) => {
        clearTimeout(timer);
        socket.terminate();
        reject(new FootClientError(`The WebSocket handshake was refused with ${response.statusCode ?? "?"}`));
      });
      socket.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  /** Scripts answered so far. */
  get executed(): number {
    return this.answered;
  }

  /** Subscribes to a process: from now on its FOOT scripts may come to this client. */
  async subscribe(processId: string): Promise<void> {
    const requestId = randomUUID();
    const answer = this.next((frame) => frame.requestId === requestId && (frame.type === "process-subscribed" || frame.type === "error"));
    this.send({ type: "process-subscribe", processId, requestId });
    const frame = await answer;
    if (frame.type === "error") throw new FootClientError(`Subscribing to '${processId}' was refused: ${JSON.stringify(frame.error)}`);
  }

  /** Resolves once every script received so far has been answered. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  async close(): Promise<void> {
    await this.idle();
    if (this.socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      this.socket.once("close", () => resolve());
      this.socket.close(1000, "foot client closing");
    });
  }

  private next(match: Waiter["match"]): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve: (frame) => {
          clearTimeout(timer);
          resolve(frame);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new FootClientError("No answer from the service in time"));
      }, this.options.timeoutMs ?? 5_000);
      this.waiters.add(waiter);
    });
  }

  private send(frame: object): void {
    this.socket.send(JSON.stringify(frame));
  }

  private receive(text: string): void {
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch (error) {
      this.options.onError?.(error);
      return;
    }
    if (typeof frame !== "object" || frame === null || Array.isArray(frame)) return;
    const record = frame as Record<string, unknown>;
    this.options.onFrame?.(record);
    for (const waiter of this.waiters) {
      if (waiter.match(record)) {
        this.waiters.delete(waiter);
        waiter.resolve(record);
      }
    }
    if (record.type === "process-skill-script-execute") {
      const parsed = ExecuteFrame.safeParse(record);
      if (!parsed.success) {
        this.options.onError?.(parsed.error);
        return;
      }
      const run = this.execute(parsed.data).finally(() => this.running.delete(run));
      this.running.add(run);
    }
  }

  private async execute(frame: z.infer<typeof ExecuteFrame>): Promise<void> {
    const json = await footScriptAnswer(frame, {
      fs: this.fs,
      limits: this.limits,
      ...(this.options.pool ? { pool: this.options.pool } : {}),
    });
    this.answered += 1;
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(json);
  }
}

/** A `process-skill-script-execute` frame, as a Foot client receives it. */
export const parseScriptExecuteFrame = (frame: unknown): z.infer<typeof ExecuteFrame> | undefined => {
  const parsed = ExecuteFrame.safeParse(frame);
  return parsed.success ? parsed.data : undefined;
};

/**
 * Runs one FOOT script on `fs` and returns the `process-skill-script-result` frame to send, as
 * text that fits one WebSocket message: for clients that hold their own connection (`skills chat`).
 */
export async function footScriptAnswer(
  frame: Pick<z.infer<typeof ExecuteFrame>, "invocationId" | "source" | "args">,
  options: { fs: FootFileSystem; limits?: ScriptLimits; pool?: SandboxPool },
): Promise<string> {
  let answer: Record<string, unknown>;
  try {
    const run = await runScript({
      source: frame.source,
      args: frame.args,
      bindings: { fs: options.fs.bindings() },
      limits: options.limits ?? DEFAULT_LIMITS,
      ...(options.pool ? { pool: options.pool } : {}),
    });
    answer = { result: run.result ?? null, logs: run.logs };
  } catch (error) {
    answer = { error: errorOf(error), logs: error instanceof ScriptFailure ? error.logs : [] };
  }
  const json = JSON.stringify({ type: "process-skill-script-result", invocationId: frame.invocationId, ...answer });
  if (Buffer.byteLength(json, "utf8") <= MAX_ANSWER_BYTES) return json;
  return JSON.stringify({
    type: "process-skill-script-result",
    invocationId: frame.invocationId,
    error: { code: "RESULT_TOO_LARGE", message: `the answer exceeds the ${MAX_ANSWER_BYTES}-byte message limit` },
  });
}

/** What the service may learn of a failure: the script's own message, never a host detail. */
function errorOf(error: unknown): { code: string; message: string } {
  if (error instanceof ScriptFailure) return { code: error.name, message: error.message.slice(0, 2_000) };
  if (error instanceof SkillsError && error.code !== "INTERNAL") return { code: error.code, message: error.message.slice(0, 2_000) };
  return { code: "CLIENT_ERROR", message: "the client could not run the script" };
}
