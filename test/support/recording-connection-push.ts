import type { ConnectionPush, PushOutcome, PushTarget } from "../../shared/connections/connection-push.js";
import type { ConnectionStore } from "../../shared/connections/connection-store.js";
import { fitFrame, MAX_FRAME_BYTES } from "../../shared/connections/frame-size.js";
import type { ServerFrame } from "../../shared/connections/server-frames.js";

export interface RecordedPush {
  connectionId: string;
  tenant?: string | undefined;
  /** The frame as the client would receive it (after fitting). */
  frame: ServerFrame;
  bytes: number;
}

/**
 * ConnectionPush that keeps what it would send, with the adapter's size rules and gone-handling
 * (tests, and the local stack's inspection). Connections marked gone behave like closed sockets.
 */
export class RecordingConnectionPush implements ConnectionPush {
  readonly sent: RecordedPush[] = [];
  private readonly gone = new Set<string>();
  private readonly failing = new Set<string>();

  constructor(private readonly options: { connections?: ConnectionStore; maxBytes?: number } = {}) {}

  markGone(connectionId: string): void {
    this.gone.add(connectionId);
  }

  /** Sends to this connection reject (a throttled or misconfigured management API). */
  markFailing(connectionId: string): void {
    this.failing.add(connectionId);
  }

  /** Connections the code under test closed (DeleteConnection). */
  readonly disconnected: string[] = [];

  async disconnect(target: PushTarget): Promise<void> {
    this.disconnected.push(target.connectionId);
    this.gone.add(target.connectionId);
    if (target.tenant !== undefined) await this.options.connections?.remove(target.tenant, target.connectionId);
  }

  framesTo(connectionId: string): ServerFrame[] {
    return this.sent.filter((p) => p.connectionId === connectionId).map((p) => p.frame);
  }

  async send(target: PushTarget, frame: ServerFrame): Promise<PushOutcome> {
    if (this.failing.has(target.connectionId)) throw new Error(`push to ${target.connectionId} failed`);
    if (this.gone.has(target.connectionId)) {
      if (target.tenant !== undefined) await this.options.connections?.remove(target.tenant, target.connectionId);
      return "gone";
    }
    const fitted = fitFrame(frame, this.options.maxBytes ?? MAX_FRAME_BYTES);
    this.sent.push({
      connectionId: target.connectionId,
      ...(target.tenant === undefined ? {} : { tenant: target.tenant }),
      frame: JSON.parse(fitted.json) as ServerFrame,
      bytes: Buffer.byteLength(fitted.json, "utf8"),
    });
    return "sent";
  }
}
