import type { PendingMessage } from "../processes/process.js";
import type { RequestError, RequestStatus } from "../processes/request-store.js";

/** Why the service scheduled a turn; the WebSocket frame `process-turn-scheduled` carries it. */
export type TurnScheduledReason = "action" | "shot" | "args" | "report" | "guard";

export interface TurnScheduledEvent {
  tenant: string;
  processId: string;
  reason: TurnScheduledReason;
  /** The process's pending messages right after the write that scheduled the turn. */
  pending: PendingMessage[];
  /** See RequestCompletedEvent.noSubscribers. */
  noSubscribers?: boolean;
}

export interface RequestCompletedEvent {
  tenant: string;
  processId: string;
  requestId: string;
  status: Exclude<RequestStatus, "QUEUED">;
  result?: unknown;
  error?: RequestError;
  /** The lane message kind (e.g. `turn.compose`): a composed turn has a frame of its own. */
  kind?: string;
  /**
   * true when the lane's read of the process, after the request was enqueued, showed nobody
   * subscribed (its subscription marker): a fan-out need not look up subscribers.
   */
  noSubscribers?: boolean;
}

/**
 * What the lane tells the outside world after it applied something (DESIGN.md Flows: "push the
 * result to WebSocket subscribers"). Delivery is best effort: the lane never fails a message
 * because a subscriber could not be told, and state is always readable from the stores.
 */
export interface ProcessEvents {
  turnScheduled(event: TurnScheduledEvent): Promise<void>;
  requestCompleted(event: RequestCompletedEvent): Promise<void>;
}

export class NoopProcessEvents implements ProcessEvents {
  async turnScheduled(): Promise<void> {}
  async requestCompleted(): Promise<void> {}
}

export type RecordedProcessEvent =
  ({ type: "turnScheduled" } & TurnScheduledEvent) | ({ type: "requestCompleted" } & RequestCompletedEvent);

/** Keeps every event in order; for tests and the local stack's inspection. */
export class RecordingProcessEvents implements ProcessEvents {
  readonly events: RecordedProcessEvent[] = [];

  async turnScheduled(event: TurnScheduledEvent): Promise<void> {
    this.events.push(structuredClone({ type: "turnScheduled", ...event }));
  }

  async requestCompleted(event: RequestCompletedEvent): Promise<void> {
    this.events.push(structuredClone({ type: "requestCompleted", ...event }));
  }

  ofType<T extends RecordedProcessEvent["type"]>(type: T): Extract<RecordedProcessEvent, { type: T }>[] {
    return this.events.filter((e): e is Extract<RecordedProcessEvent, { type: T }> => e.type === type);
  }
}
