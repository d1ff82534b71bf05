import { randomUUID } from "node:crypto";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import type { S3Client } from "@aws-sdk/client-s3";
import { CATALOGUE_KEY_WILDCARD, wildcardRegExp, type DocumentEventType } from "../document-events.js";
import { LOCAL_ACCOUNT_ID } from "./http-api-event.js";

/**
 * fauxqs 1.9.2 sends no S3 event notifications (docs/decisions.md), so the local stack finds the
 * writes itself: it lists the bucket's catalogue keys on an interval, compares ETags with the
 * previous listing, and hands one EventBridge "Object Created" / "Object Deleted" event per changed
 * key to the s3-events function, filtered as the stack's rule filters (infra/document-events.ts).
 *
 * Like on AWS, API writes are seen too (a second, harmless bump). Unlike AWS, an overwrite with the
 * same bytes (same ETag) sends nothing, which changes nothing a listing would show. A failed
 * delivery is retried on the next scans, at most MAX_DELIVERIES times in all, then given up as
 * Lambda would after its retries (on AWS: the rule's dead-letter queue).
 */

/** An S3 event as EventBridge delivers it (the fields the function and a reader of its logs use). */
export interface S3ObjectEvent {
  version: "0";
  id: string;
  "detail-type": DocumentEventType;
  source: "aws.s3";
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: {
    version: "0";
    bucket: { name: string };
    object: { key: string; size?: number; etag?: string };
    "request-id": string;
    requester: string;
    reason: "PutObject" | "DeleteObject";
    "deletion-type"?: "Permanently Deleted";
  };
}

interface S3EventEmulatorLogger {
  warn(message: string, detail?: unknown): void;
  error(message: string, detail?: unknown): void;
}

interface S3EventEmulatorOptions {
  s3: S3Client;
  bucketName: string;
  region: string;
  /** Invokes the s3-events function; a rejection is a failed delivery. */
  deliver: (event: S3ObjectEvent) => Promise<void>;
  /** Pause between the end of one scan and the start of the next. */
  intervalMs: number;
  logger: S3EventEmulatorLogger;
}

/** Lambda's asynchronous invocation: the first attempt and two retries. */
export const MAX_DELIVERIES = 3;
/** Deliveries of one scan run this many at a time (a bulk upload must not flood the function). */
const DELIVERY_CONCURRENCY = 8;

interface ObjectState {
  etag: string;
  size: number | undefined;
}

interface Change {
  key: string;
  type: DocumentEventType;
  /** The state to remember once delivered; undefined for a deletion. */
  next: ObjectState | undefined;
}

const CATALOGUE_KEY = wildcardRegExp(CATALOGUE_KEY_WILDCARD);
/** The literal start of the wildcard: the only part of the bucket that is listed. */
const LIST_PREFIX = CATALOGUE_KEY_WILDCARD.slice(0, CATALOGUE_KEY_WILDCARD.indexOf("*"));

const unquoted = (etag: string): string => etag.replace(/^"|"$/g, "");

export class S3EventEmulator {
  private known = new Map<string, ObjectState>();
  private readonly attempts = new Map<string, number>();
  private queue: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: S3EventEmulatorOptions) {}

  /** Takes the bucket as it is now as the baseline (no events for it) and starts scanning. */
  async start(): Promise<void> {
    this.known = await this.list();
    this.schedule();
  }

  /**
   * Resolves once a scan that started after this call has delivered its events (the local
   * counterpart of "the event has reached the function"); rejects if that scan could not list.
   */
  settled(): Promise<void> {
    return this.enqueue();
  }

  /** Stops scanning; resolves once a scan under way has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.queue;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.enqueue()
        .catch((error: unknown) => this.options.logger.warn("S3 event emulation: listing the documents bucket failed", error))
        .finally(() => this.schedule());
    }, this.options.intervalMs);
    // An interval must never keep the process alive.
    this.timer.unref();
  }

  /** Scans one at a time: a scan compares with the state the previous one left. */
  private enqueue(): Promise<void> {
    const scan = this.queue.then(() => (this.stopped ? undefined : this.scan()));
    this.queue = scan.catch(() => undefined);
    return scan;
  }

  private async scan(): Promise<void> {
    const current = await this.list();
    const changes: Change[] = [];
    for (const [key, state] of current) {
      if (this.known.get(key)?.etag !== state.etag) changes.push({ key, type: "Object Created", next: state });
    }
    for (const key of this.known.keys()) {
      if (!current.has(key)) changes.push({ key, type: "Object Deleted", next: undefined });
    }
    for (let i = 0; i < changes.length; i += DELIVERY_CONCURRENCY) {
      await Promise.all(changes.slice(i, i + DELIVERY_CONCURRENCY).map((change) => this.deliver(change)));
    }
  }

  private async deliver(change: Change): Promise<void> {
    try {
      await this.options.deliver(this.eventOf(change));
    } catch (error) {
      const attempts = (this.attempts.get(change.key) ?? 0) + 1;
      if (attempts < MAX_DELIVERIES) {
        this.attempts.set(change.key, attempts);
        this.options.logger.warn(
          `S3 event emulation: ${change.type} of ${change.key} failed (attempt ${attempts} of ${MAX_DELIVERIES}); retried on the next scan`,
          error,
        );
        return;
      }
      this.options.logger.error(
        `S3 event emulation: gave up on ${change.type} of ${change.key} after ${attempts} attempts (on AWS: the dead-letter queue)`,
        error,
      );
    }
    this.attempts.delete(change.key);
    if (change.next === undefined) this.known.delete(change.key);
    else this.known.set(change.key, change.next);
  }

  private eventOf({ key, type, next }: Change): S3ObjectEvent {
    const { bucketName: name, region } = this.options;
    return {
      version: "0",
      id: randomUUID(),
      "detail-type": type,
      source: "aws.s3",
      account: LOCAL_ACCOUNT_ID,
      time: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      region,
      resources: [`arn:aws:s3:::${name}`],
      detail: {
        version: "0",
        bucket: { name },
        object: next === undefined ? { key } : { key, etag: next.etag, ...(next.size === undefined ? {} : { size: next.size }) },
        "request-id": randomUUID(),
        requester: LOCAL_ACCOUNT_ID,
        reason: next === undefined ? "DeleteObject" : "PutObject",
        ...(next === undefined ? { "deletion-type": "Permanently Deleted" as const } : {}),
      },
    };
  }

  /** Catalogue keys and their ETags: one ListObjectsV2 per 1 000 keys under `tenants/`. */
  private async list(): Promise<Map<string, ObjectState>> {
    const objects = new Map<string, ObjectState>();
    let continuationToken: string | undefined;
    do {
      const page = await this.options.s3.send(
        new ListObjectsV2Command({ Bucket: this.options.bucketName, Prefix: LIST_PREFIX, ContinuationToken: continuationToken }),
      );
      for (const { Key: key, ETag: etag, Size: size } of page.Contents ?? []) {
        if (key !== undefined && CATALOGUE_KEY.test(key)) objects.set(key, { etag: unquoted(etag ?? ""), size });
      }
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken !== undefined);
    return objects;
  }
}
