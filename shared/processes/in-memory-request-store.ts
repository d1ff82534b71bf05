import { BaseRequestStore } from "./request-store-base.js";
import type { StoredSettledAt } from "./request-store-base.js";
import type { RequestStoreOptions } from "./request-store-base.js";
import type { RequestOutcome, RequestRecord } from "./request-store.js";

/** RequestStore on a Map; expiry is recorded but not enforced (like DynamoDB's lazy TTL). */
export class InMemoryRequestStore extends BaseRequestStore {
  private readonly records = new Map<string, { record: RequestRecord; expiresAt: number }>();

  constructor(options: RequestStoreOptions = {}) {
    super(options);
  }

  /** Epoch seconds at which the record may be deleted; for tests of the TTL arithmetic. */
  expiresAtOf(tenant: string, processId: string, requestId: string): number | undefined {
    return this.records.get(recordKey(tenant, processId, requestId))?.expiresAt;
  }

  protected async insertIfAbsent(tenant: string, record: RequestRecord, expiresAt: number): Promise<boolean> {
    const key = recordKey(tenant, record.processId, record.requestId);
    if (this.records.has(key)) return false;
    this.records.set(key, { record: structuredClone(record), expiresAt });
    return true;
  }

  protected async readItem(tenant: string, processId: string, requestId: string): Promise<unknown> {
    const stored = this.records.get(recordKey(tenant, processId, requestId));
    return stored === undefined ? undefined : structuredClone(stored.record);
  }

  protected async completeIfQueued(
    tenant: string,
    processId: string,
    requestId: string,
    outcome: RequestOutcome,
    expiresAt: number,
    settledAtMs: number,
  ): Promise<unknown> {
    const key = recordKey(tenant, processId, requestId);
    const stored = this.records.get(key);
    if (stored?.record.status !== "QUEUED") return undefined;
    const record: RequestRecord & StoredSettledAt = { ...stored.record, ...structuredClone(outcome), settledAtMs };
    this.records.set(key, { record, expiresAt });
    return structuredClone(record);
  }
}

// Scoped like the DynamoDB key (requestItemKey): tenant, then process, then requestId.
const recordKey = (tenant: string, processId: string, requestId: string): string => JSON.stringify([tenant, processId, requestId]);
