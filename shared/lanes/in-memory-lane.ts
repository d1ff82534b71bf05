import type { Lane } from "./lane.js";
import { laneDeduplicationId, laneGroupIdOf } from "./lane-identity.js";
import { decodeLaneMessage, encodeLaneMessage, LANE_MESSAGE_MAX_BYTES } from "./lane-message.js";
import type { LaneMessage } from "./lane-message.js";

interface InMemoryLaneOptions {
  /** Same requestId on the same process within this window is dropped (SQS: 5 minutes). */
  deduplicationWindowMs?: number;
  /** After this many failed deliveries a message moves to {@link InMemoryLane.deadLetters}. */
  maxReceiveCount?: number;
  maxBodyBytes?: number;
  now?: () => number;
}

export interface LaneDrainFailure {
  message: LaneMessage;
  error: unknown;
  receiveCount: number;
}

export interface LaneDrainResult {
  delivered: number;
  failures: LaneDrainFailure[];
}

interface QueuedBody {
  body: string;
  receiveCount: number;
}

/**
 * Lane for unit tests of domain logic. Messages travel encoded, like on SQS, so a handler never
 * shares object identity with the producer and oversized or unserializable messages fail here too.
 */
export class InMemoryLane implements Lane {
  private readonly groups = new Map<string, QueuedBody[]>();
  private readonly seen = new Map<string, number>();
  private readonly dead: LaneMessage[] = [];
  private readonly windowMs: number;
  private readonly maxReceiveCount: number;
  private readonly maxBodyBytes: number;
  private readonly now: () => number;

  constructor(options: InMemoryLaneOptions = {}) {
    this.windowMs = options.deduplicationWindowMs ?? 5 * 60 * 1000;
    this.maxReceiveCount = options.maxReceiveCount ?? Number.POSITIVE_INFINITY;
    this.maxBodyBytes = options.maxBodyBytes ?? LANE_MESSAGE_MAX_BYTES;
    this.now = options.now ?? Date.now;
  }

  async enqueue(message: LaneMessage): Promise<void> {
    const body = encodeLaneMessage(message, this.maxBodyBytes);
    const dedupId = laneDeduplicationId(message);
    const now = this.now();
    const firstSeen = this.seen.get(dedupId);
    if (firstSeen !== undefined && now - firstSeen < this.windowMs) {
      return;
    }
    this.forgetExpired(now);
    this.seen.delete(dedupId);
    this.seen.set(dedupId, now);
    const groupId = laneGroupIdOf(message);
    const queue = this.groups.get(groupId) ?? [];
    queue.push({ body, receiveCount: 0 });
    this.groups.set(groupId, queue);
  }

  // Insertion order equals time order (entries are re-inserted, never updated in place).
  private forgetExpired(now: number): void {
    for (const [dedupId, firstSeen] of this.seen) {
      if (now - firstSeen < this.windowMs) return;
      this.seen.delete(dedupId);
    }
  }

  /** Messages waiting, over all groups. */
  get size(): number {
    let total = 0;
    for (const queue of this.groups.values()) total += queue.length;
    return total;
  }

  get deadLetters(): readonly LaneMessage[] {
    return this.dead;
  }

  /**
   * Delivers until every group is empty or blocked. Groups advance concurrently, one message
   * per group at a time, in enqueue order; messages enqueued by the handler are delivered in
   * the same drain. A failing message stays at the head of its group (delivered again by the
   * next drain) and blocks the rest of that group for this drain, as on the SQS lane.
   */
  async drain(handler: (message: LaneMessage) => Promise<void>): Promise<LaneDrainResult> {
    const blocked = new Set<string>();
    const result: LaneDrainResult = { delivered: 0, failures: [] };
    for (;;) {
      const ready = [...this.groups.entries()].filter(([groupId, queue]) => queue.length > 0 && !blocked.has(groupId));
      if (ready.length === 0) return result;
      await Promise.all(ready.map(([groupId, queue]) => this.deliverHead(groupId, queue, handler, blocked, result)));
    }
  }

  private async deliverHead(
    groupId: string,
    queue: QueuedBody[],
    handler: (message: LaneMessage) => Promise<void>,
    blocked: Set<string>,
    result: LaneDrainResult,
  ): Promise<void> {
    const head = queue[0];
    if (head === undefined) return;
    head.receiveCount += 1;
    const message = decodeLaneMessage(head.body);
    try {
      await handler(message);
      queue.shift();
      result.delivered += 1;
    } catch (error) {
      result.failures.push({ message, error, receiveCount: head.receiveCount });
      blocked.add(groupId);
      if (head.receiveCount >= this.maxReceiveCount) {
        queue.shift();
        this.dead.push(message);
      }
    }
    if (queue.length === 0 && this.groups.get(groupId) === queue) this.groups.delete(groupId);
  }
}
