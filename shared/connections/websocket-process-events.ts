import type { ProcessEvents, RequestCompletedEvent, TurnScheduledEvent } from "../steering/process-events.js";
import { ConnectionPushFailed } from "./connection-errors.js";
import type { ConnectionPush } from "./connection-push.js";
import type { ConnectionStore } from "./connection-store.js";
import type { ServerFrame } from "./server-frames.js";
import { turnIdFor } from "../processes/turn-ids.js";

export interface WebSocketProcessEventsDeps {
  connections: ConnectionStore;
  push: ConnectionPush;
  /** Parallel PostToConnection calls per event (default 10). */
  concurrency?: number;
}

/**
 * ProcessEvents for WebSocket clients: every event goes to the connections subscribed to its
 * process, and only to them. One connection failing does not stop the others; the failures are
 * reported together afterwards (the lane logs them and carries on: delivery is best effort).
 *
 * A composed turn is pushed as `process-turn-result` (API.md third round); every other completed
 * lane request (steering, a completed turn, a child's report) as `process-skill-result`.
 */
const TURN_COMPOSE = "turn.compose";

function turnResultFrame(event: RequestCompletedEvent): ServerFrame {
  return {
    type: "process-turn-result",
    processId: event.processId,
    requestId: event.requestId,
    turnId: turnIdFor(event.requestId),
    status: event.status,
    ...(event.status === "DONE" ? { result: event.result } : {}),
    ...(event.error ? { error: { code: event.error.code, message: event.error.message } } : {}),
  };
}

export function createWebSocketProcessEvents(deps: WebSocketProcessEventsDeps): ProcessEvents {
  const concurrency = Math.max(1, deps.concurrency ?? 10);

  const fanOut = async (tenant: string, processId: string, frame: ServerFrame, noSubscribers = false): Promise<void> => {
    if (noSubscribers) return;
    const subscribers = await deps.connections.subscribers(tenant, processId);
    const failures: { connectionId: string; error: unknown }[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < subscribers.length) {
        const connectionId = subscribers[next++] as string;
        try {
          await deps.push.send({ tenant, connectionId }, frame);
        } catch (error) {
          failures.push({ connectionId, error });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, subscribers.length) }, worker));
    if (failures.length > 0) throw new ConnectionPushFailed(failures);
  };

  return {
    turnScheduled: (event: TurnScheduledEvent) =>
      fanOut(
        event.tenant,
        event.processId,
        {
          type: "process-turn-scheduled",
          processId: event.processId,
          reason: event.reason,
          pending: event.pending,
        },
        event.noSubscribers,
      ),
    requestCompleted: (event: RequestCompletedEvent) =>
      fanOut(
        event.tenant,
        event.processId,
        event.kind === TURN_COMPOSE
          ? turnResultFrame(event)
          : {
              type: "process-skill-result",
              requestId: event.requestId,
              processId: event.processId,
              status: event.status,
              ...(event.status === "DONE" ? { result: event.result } : {}),
              ...(event.error ? { error: { code: event.error.code, message: event.error.message } } : {}),
            },
        event.noSubscribers,
      ),
  };
}
