import { randomUUID } from "node:crypto";
import type { ConnectionPush } from "../connections/connection-push.js";
import type { ConnectionStore } from "../connections/connection-store.js";
import { MAX_FRAME_BYTES } from "../connections/frame-size.js";
import type { ProcessSkillScriptExecuteFrame } from "../connections/server-frames.js";
import { sleep as realSleep } from "../support/retry-backoff.js";
import type { Sleep } from "../support/retry-backoff.js";
import { FootScriptFailed, FootScriptTimeout, FootScriptTooLarge } from "./foot-errors.js";
import type { FootInvocationStore } from "./foot-invocation-store.js";
import type { FootPort, FootScriptOutcome, FootScriptRequest } from "../scripts/foot-port.js";

interface FootRouterDeps {
  connections: Pick<ConnectionStore, "subscribers" | "get">;
  push: ConnectionPush;
  invocations: FootInvocationStore;
  newInvocationId?: () => string;
  /** How long the client may take. Default 10 s: within the tools function's 15 s. */
  timeoutMs?: number;
  /** First poll interval; it grows ×1.5 up to `pollMaxMs` (like RequestStore.waitFor). */
  pollStartMs?: number;
  pollMaxMs?: number;
  now?: () => number;
  sleep?: Sleep;
}

const DEFAULT_FOOT_TIMEOUT_MS = 10_000;

/**
 * Routes a FOOT script to one WebSocket client subscribed to the process: records the
 * invocation PENDING, pushes `process-skill-script-execute` to the first subscriber that is
 * still there, and polls the invocation until the client's answer (stored by the `$default`
 * function, only from the connection the call went to) arrives or the deadline passes. The
 * item is removed either way, so a late answer finds nothing. Which client: the first of the
 * process owner's own connections (the identity proved at `$connect`) among the subscribers —
 * the frame carries the script's source and arguments, and its answer becomes the owner's tool
 * result, so nobody else's socket may take it; without an owner there is no one to route to.
 * The spec has one Foot per user session; a client that cannot run scripts lets the call time out.
 */
export class FootRouter implements FootPort {
  private readonly newInvocationId: () => string;
  private readonly timeoutMs: number;
  private readonly pollStartMs: number;
  private readonly pollMaxMs: number;
  private readonly now: () => number;
  private readonly sleep: Sleep;

  constructor(private readonly deps: FootRouterDeps) {
    this.newInvocationId = deps.newInvocationId ?? randomUUID;
    this.timeoutMs = deps.timeoutMs ?? DEFAULT_FOOT_TIMEOUT_MS;
    this.pollStartMs = deps.pollStartMs ?? 20;
    this.pollMaxMs = deps.pollMaxMs ?? 250;
    this.now = deps.now ?? Date.now;
    this.sleep = deps.sleep ?? realSleep;
  }

  async execute(request: FootScriptRequest): Promise<FootScriptOutcome> {
    const { tenant, processId } = request;
    const subscribers = await this.ownersConnections(tenant, processId, request.owner);
    if (subscribers.length === 0) return { routed: false };

    const invocationId = this.newInvocationId();
    const frame: ProcessSkillScriptExecuteFrame = {
      type: "process-skill-script-execute",
      invocationId,
      processId,
      skillName: request.skillName,
      scriptName: request.scriptName,
      args: request.args,
      source: request.source,
    };
    // The push would replace an oversized frame by an error frame; the caller deserves the reason.
    const bytes = Buffer.byteLength(JSON.stringify(frame), "utf8");
    if (bytes > MAX_FRAME_BYTES) throw new FootScriptTooLarge(bytes, MAX_FRAME_BYTES);

    for (const connectionId of subscribers) {
      if (request.signal?.aborted) break;
      // Recorded before the push, so even an instant answer finds its invocation.
      await this.deps.invocations.create(tenant, { invocationId, processId, connectionId });
      try {
        const outcome = await this.deps.push.send({ tenant, connectionId }, frame);
        if (outcome === "sent") return await this.awaitAnswer(tenant, invocationId, request.signal);
      } finally {
        await this.deps.invocations.remove(tenant, invocationId);
      }
    }
    return { routed: false };
  }

  private async ownersConnections(tenant: string, processId: string, owner: string | undefined): Promise<string[]> {
    if (owner === undefined) return [];
    const subscribers = await this.deps.connections.subscribers(tenant, processId);
    const records = await Promise.all(subscribers.map((id) => this.deps.connections.get(tenant, id)));
    return subscribers.filter((_, i) => {
      const identity = records[i]?.identity;
      return identity !== undefined && identity.tenant === tenant && identity.login === owner;
    });
  }

  private async awaitAnswer(tenant: string, invocationId: string, signal: AbortSignal | undefined): Promise<FootScriptOutcome> {
    const deadline = this.now() + this.timeoutMs;
    let interval = this.pollStartMs;
    for (;;) {
      const invocation = await this.deps.invocations.get(tenant, invocationId);
      if (invocation?.status === "DONE") return { routed: true, result: invocation.result ?? null, logs: invocation.logs ?? [] };
      if (invocation?.status === "FAILED")
        throw new FootScriptFailed(
          invocation.error?.message ?? "unknown error",
          invocation.error?.code ?? "SCRIPT_ERROR",
          invocation.logs ?? [],
        );
      const remaining = deadline - this.now();
      if (remaining <= 0 || signal?.aborted) throw new FootScriptTimeout(this.timeoutMs);
      await this.sleep(Math.min(interval, remaining), signal);
      interval = Math.min(this.pollMaxMs, Math.ceil(interval * 1.5));
    }
  }
}
