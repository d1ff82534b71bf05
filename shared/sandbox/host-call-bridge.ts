import { MessageChannel, type MessagePort } from "node:worker_threads";
import { decodeHostArgs, encodeHostError, encodeHostFailure, encodeHostValue } from "./host-call.js";
import { PendingHostCall } from "./pending-host-call.js";
import type { Job } from "./sandbox-job.js";
import type { HostReply, WorkerInit, WorkerToHost } from "./sandbox-protocol.js";

type HostCallMessage = Extract<WorkerToHost, { type: "hostCall" }>;

/**
 * The host end of one worker's synchronous host calls (the protocol is in sandbox-protocol.ts).
 * The worker posts a hostCall on its parentPort and blocks in Atomics.wait; a blocked thread
 * cannot receive messages, so the reply goes on a port of its own, which the worker drains with
 * receiveMessageOnPort once a store + notify on the shared signal woke it.
 */
export class HostCallBridge {
  /** The worker's end, for WorkerInit (transfer the port). */
  readonly workerEnd: Pick<WorkerInit, "replyPort" | "replySignal">;
  private readonly replyPort: MessagePort;
  private readonly replySignal: Int32Array;

  constructor() {
    const channel = new MessageChannel();
    const replySignal = new SharedArrayBuffer(4);
    this.workerEnd = { replyPort: channel.port2, replySignal };
    this.replyPort = channel.port1;
    this.replySignal = new Int32Array(replySignal);
    this.replyPort.unref();
  }

  /**
   * Runs one host function for a worker blocked in Atomics.wait and wakes it with the reply.
   * The worker bounds its own wait (per-call timeout, evaluation deadline); the abort here
   * only tells the host function to stop. A reply for an evaluation that already ended
   * (`stillWaiting` false) is dropped: that worker has moved on. `blocked` runs once the call
   * counts as in flight, before the host function starts.
   */
  serve(job: Job, message: HostCallMessage, blocked: () => void, stillWaiting: () => boolean): void {
    const path = job.request.hostFunctions?.[message.index];
    const fn = job.hostFunctions[message.index];
    if (path === undefined || fn === undefined) {
      this.reply({ callId: message.callId, reply: encodeHostFailure("HOST_CALL_FAILED", "invalid host call") });
      return;
    }
    const call = new PendingHostCall(path, job.depth, job.request.hostCallTimeoutMs);
    job.pendingCalls.set(message.callId, call);
    blocked();
    call.run(
      () => fn(decodeHostArgs(message.argsJson), call.context),
      (outcome) => {
        job.pendingCalls.delete(message.callId);
        if (!stillWaiting()) return;
        const reply = outcome.ok ? encodeHostValue(path, outcome.value, job.maxHostResultBytes) : hostFailure(job, path, outcome.error);
        this.reply({ callId: message.callId, reply });
      },
    );
  }

  close(): void {
    this.replyPort.close();
  }

  private reply(reply: HostReply): void {
    this.replyPort.postMessage(reply);
    Atomics.store(this.replySignal, 0, 1);
    Atomics.notify(this.replySignal, 0);
  }
}

const hostFailure = (job: Job, path: string, error: unknown): string => {
  try {
    job.onHostError?.(path, error);
  } catch {
    // A failing logger must not change what the guest sees.
  }
  return encodeHostError(path, error);
};
