import type { Process } from "./process.js";

/**
 * The ProcessStore port. Every write is conditional, so concurrent writers (two lane
 * deliveries, a retry racing its original) never lose an update.
 * Adapters: in-memory-process-store.ts (tests, local), dynamodb-process-store.ts (AWS);
 * the rules they share live in process-store-base.ts.
 */
export interface ProcessStore {
  /**
   * Claims `name` in the session, then stores the process with version 1.
   * Idempotent for a deterministic processId: when a process with this id already exists in the
   * same session under the same name, it is returned with `created: false` (a redelivered spawn
   * must not create a second child). Any other collision → `NameTaken`.
   */
  create(process: Process): Promise<CreateResult>;
  /**
   * The processes of one user's session (API.md: sessions are per user), oldest first, at most
   * `limit` (default MAX_SESSION_PROCESSES). `owner` is the process's userId ("" for none).
   */
  listSession(tenant: string, owner: string, sessionId: string, limit?: number): Promise<Process[]>;
  /** Strongly consistent. Another tenant's process is `undefined`, like an unknown id. */
  get(tenant: string, processId: string): Promise<Process | undefined>;
  /**
   * Read → `mutate` → write if the version did not move; otherwise re-apply on the state the
   * failed write found (adapters return it with the conflict; read again only when they cannot).
   * `mutate` gets a private copy and may be called several times, so it must not have side
   * effects beyond its return value. Returning `undefined` writes nothing; throwing aborts
   * (the error propagates, nothing is written). `tenant`, `processId`, `sessionId`, `name` and
   * `createdAt` cannot be changed; `version` and `updatedAt` are set by the store.
   * Unknown process → `ProcessNotFound`; retries exhausted → `ConcurrentUpdateConflict`.
   * With `options.expected` the first attempt starts from that snapshot instead of reading.
   */
  update(tenant: string, processId: string, mutate: ProcessMutation, options?: UpdateOptions): Promise<UpdateResult>;
}

export interface UpdateOptions {
  /**
   * The process as the caller read it from this store (`get`, or a combined read validated the
   * same way). The first attempt applies `mutate` to it and writes conditional on its version
   * without reading again: an unchanged process costs one write instead of a read and a write. A
   * stale snapshot only costs the lost write: the conflict re-applies on the stored state as usual. A
   * snapshot of another process is ignored.
   */
  expected?: Process | undefined;
}

export type ProcessMutation = (current: Process) => Process | undefined | Promise<Process | undefined>;

export interface CreateResult {
  process: Process;
  /** false when an identical earlier create (same id, session and name) already stored it. */
  created: boolean;
}

export interface UpdateResult {
  process: Process;
  changed: boolean;
}
