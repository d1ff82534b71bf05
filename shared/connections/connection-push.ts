import type { ServerFrame } from "./server-frames.js";

export interface PushTarget {
  connectionId: string;
  /**
   * Tenant the connection belongs to: lets the adapter remove a gone connection. Unknown only
   * when answering a frame whose identity could not be established.
   */
  tenant?: string | undefined;
}

/** `gone`: the client disconnected; the connection and its subscriptions were removed. */
export type PushOutcome = "sent" | "gone";

/**
 * Sends one frame to one WebSocket connection (API Gateway: PostToConnection). Frames that do
 * not fit the message limit are shrunk or replaced (frame-size.ts), never sent raw.
 * Rejects only for failures other than a gone connection (throttling, permissions, network).
 */
export interface ConnectionPush {
  send(target: PushTarget, frame: ServerFrame): Promise<PushOutcome>;
  /**
   * Closes the connection from the server side (API Gateway: DeleteConnection); a gone one is a
   * no-op. Optional: pushes that cannot close (test doubles) leave it to the gateway.
   */
  disconnect?(target: PushTarget): Promise<void>;
}
