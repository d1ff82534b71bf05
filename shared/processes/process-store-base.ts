import { isDeepStrictEqual } from "node:util";
import { Process } from "./process.js";
import {
  ConcurrentUpdateConflict,
  NameTaken,
  ProcessNotFound,
  ProcessStateInvalid,
  ProcessTooLarge,
  ProcessVersionConflict,
} from "./process-errors.js";
import type { CreateResult, ProcessMutation, ProcessStore, UpdateOptions, UpdateResult } from "./process-store.js";
import { jitteredBackoffMs, sleep as realSleep } from "../support/retry-backoff.js";
import type { BackoffPolicy, Sleep } from "../support/retry-backoff.js";
import { describeIssues, parseStoredProcess } from "./stored-process.js";

/**
 * Who holds a process name in a session. Lives beside the process, not inside it. Sessions are
 * per user (API.md): the claim is keyed by tenant, the process's user (`owner`; none = ""), session
 * and name, so two users' sessions of the same id never share names.
 */
export interface NameClaim {
  tenant: string;
  owner?: string | undefined;
  sessionId: string;
  name: string;
  processId: string;
  /** Epoch ms; decides when a claim without its process counts as abandoned. */
  claimedAt: number;
}

export interface ProcessStoreOptions {
  /** Optimistic write attempts per `update` before `ConcurrentUpdateConflict` (default 50). */
  maxAttempts?: number;
  backoff?: BackoffPolicy;
  /**
   * How old a claim without a process must be before another create may take the name over
   * (default 60 s, far longer than the two writes of a create).
   */
  abandonedClaimAfterMs?: number;
  /** Serialized size limit, below DynamoDB's 400 KB item limit to leave room for attribute overhead. */
  maxProcessBytes?: number;
  now?: () => number;
  sleep?: Sleep;
  random?: () => number;
}

const CLAIM_ROUNDS = 5;

/** What identifies a claim. */
export type ClaimKey = Pick<NameClaim, "tenant" | "owner" | "sessionId" | "name">;

/** `GET …/sessions/{id}/processes` lists at most this many (a session of more is a runaway spawner). */
export const MAX_SESSION_PROCESSES = 500;

/**
 * Every ProcessStore rule that needs no AWS: the name-claim protocol, optimistic retries,
 * validation and the size cap. Adapters only implement the conditional primitives below
 * (the split of Powertools' BasePersistenceLayer / DynamoDBPersistenceLayer).
 *
 * Creating touches two items (claim, process) and dynalite has no transactions, so create is
 * ordered to fail safe instead of atomic:
 * 1. put the claim `{processId}` if absent. If it exists and names our processId, it is ours
 *    (an earlier attempt of this very create). If it names a process that exists → NameTaken.
 *    If that process does not exist, its creator is either mid-create (→ NameTaken) or died
 *    between the two writes; only a claim older than `abandonedClaimAfterMs` is taken over,
 *    with a write conditional on the exact claim we saw.
 * 2. put the process if absent; on failure delete our fresh claim (conditional on our id).
 * 3. re-read the claim: if a stalled create of ours lost it to a takeover meanwhile, delete
 *    our process again and report NameTaken — so at most one process holds a name.
 */
export abstract class BaseProcessStore implements ProcessStore {
  protected readonly maxAttempts: number;
  protected readonly backoff: BackoffPolicy;
  protected readonly abandonedClaimAfterMs: number;
  protected readonly maxProcessBytes: number;
  protected readonly now: () => number;
  protected readonly sleep: Sleep;
  protected readonly random: () => number;

  constructor(options: ProcessStoreOptions = {}) {
    this.maxAttempts = options.maxAttempts ?? 50;
    this.backoff = options.backoff ?? { baseMs: 10, capMs: 250 };
    this.abandonedClaimAfterMs = options.abandonedClaimAfterMs ?? 60_000;
    this.maxProcessBytes = options.maxProcessBytes ?? 350_000;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
  }

  /** The stored item (any shape; the base validates it) or undefined. Strongly consistent. */
  protected abstract readProcessItem(tenant: string, processId: string): Promise<unknown>;
  /** Stores the process unless one with this id exists: then ProcessVersionConflict, with that item when known. */
  protected abstract putProcessIfAbsent(process: Process): Promise<void>;
  /**
   * Replaces the process if its stored version is `expectedVersion`; otherwise (or when the
   * process is gone) ProcessVersionConflict, with the stored item when known.
   */
  protected abstract replaceProcessIfVersion(process: Process, expectedVersion: number): Promise<void>;
  /** Undo of a create; does nothing when the version moved on. */
  protected abstract deleteProcessIfVersion(tenant: string, processId: string, version: number): Promise<void>;
  /** false when the name is claimed already. */
  protected abstract putClaimIfAbsent(claim: NameClaim): Promise<boolean>;
  protected abstract readClaim(key: ClaimKey): Promise<NameClaim | undefined>;
  /** Claims of one user's session (any order), at most `limit`. */
  protected abstract listClaims(tenant: string, owner: string, sessionId: string, limit: number): Promise<NameClaim[]>;
  /** Overwrites `expected` with `claim` only if the stored claim is still exactly `expected`. */
  protected abstract replaceClaimIf(claim: NameClaim, expected: NameClaim): Promise<boolean>;
  /** Deletes the claim only while it still names `claim.processId`. */
  protected abstract deleteClaimIf(claim: NameClaim): Promise<void>;

  async create(input: Process): Promise<CreateResult> {
    const process = this.validated({ ...input, version: 1 });
    const claim: NameClaim = {
      tenant: process.tenant,
      owner: process.userId ?? "",
      sessionId: process.sessionId,
      name: process.name,
      processId: process.processId,
      claimedAt: this.now(),
    };
    const { fresh } = await this.claimName(claim);

    let taken: ProcessVersionConflict | undefined;
    try {
      await this.putProcessIfAbsent(process);
    } catch (error) {
      if (!(error instanceof ProcessVersionConflict)) {
        if (fresh) await this.releaseClaim(claim);
        throw error;
      }
      taken = error;
    }
    if (taken) {
      const existing = await this.storedOrRead(taken, process.tenant, process.processId);
      if (
        existing &&
        existing.sessionId === process.sessionId &&
        existing.name === process.name &&
        (existing.userId ?? "") === (process.userId ?? "")
      ) {
        return { process: existing, created: false };
      }
      if (fresh) await this.releaseClaim(claim);
      throw new NameTaken(process.sessionId, process.name, process.processId);
    }

    const holder = await this.readClaim(claim);
    if (holder?.processId !== process.processId) {
      await this.deleteProcessIfVersion(process.tenant, process.processId, 1);
      throw new NameTaken(process.sessionId, process.name, holder?.processId);
    }
    return { process, created: true };
  }

  async listSession(tenant: string, owner: string, sessionId: string, limit: number = MAX_SESSION_PROCESSES): Promise<Process[]> {
    const claims = await this.listClaims(tenant, owner, sessionId, limit);
    const processes = await Promise.all(claims.map((claim) => this.get(tenant, claim.processId)));
    // A claim whose create died (no process), or one a takeover left behind, lists nothing.
    return processes
      .filter(
        (p): p is Process =>
          p !== undefined &&
          p.sessionId === sessionId &&
          (p.userId ?? "") === owner &&
          claims.some((c) => c.processId === p.processId && c.name === p.name),
      )
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.processId < b.processId ? -1 : 1));
  }

  async get(tenant: string, processId: string): Promise<Process | undefined> {
    return parseStoredProcess(await this.readProcessItem(tenant, processId), tenant, processId);
  }

  async update(tenant: string, processId: string, mutate: ProcessMutation, options: UpdateOptions = {}): Promise<UpdateResult> {
    // A snapshot of another process (a caller's bug) is not trusted: the first attempt reads instead.
    const expected = options.expected?.tenant === tenant && options.expected.processId === processId ? options.expected : undefined;
    let current = expected ?? (await this.get(tenant, processId));
    let lost: Process | undefined;
    for (let attempt = 1; ; attempt++) {
      if (!current) throw new ProcessNotFound(processId);
      // A write whose answer was lost did happen: the SDK's retry of it (or ours) then finds the
      // version moved and reports a conflict. Found stored as written, it is our change.
      if (lost !== undefined && sameState(current, lost)) return { process: current, changed: true };
      const next = await mutate(structuredClone(current));
      if (next === undefined) return { process: current, changed: false };
      const candidate = this.validated({
        ...next,
        tenant: current.tenant,
        processId: current.processId,
        sessionId: current.sessionId,
        name: current.name,
        createdAt: current.createdAt,
        updatedAt: new Date(this.now()).toISOString(),
        version: current.version + 1,
      });
      let conflict: ProcessVersionConflict;
      try {
        await this.replaceProcessIfVersion(candidate, current.version);
        return { process: candidate, changed: true };
      } catch (error) {
        if (!(error instanceof ProcessVersionConflict)) throw error;
        conflict = error;
      }
      lost = candidate;
      if (attempt >= this.maxAttempts) throw new ConcurrentUpdateConflict(processId, attempt, { cause: conflict });
      await this.sleep(jitteredBackoffMs(attempt, this.backoff, this.random));
      // Re-apply on the state that won, as the failed write found it: no second read.
      current = await this.storedOrRead(conflict, tenant, processId);
    }
  }

  /**
   * The process a conflict found stored, validated like `get`. Read instead when the conflict
   * carries no item: none is stored (the read confirms it), or the endpoint did not return it
   * (dynalite 4.0.0 ignores ReturnValuesOnConditionCheckFailure; DynamoDB returns it).
   */
  private async storedOrRead(conflict: ProcessVersionConflict, tenant: string, processId: string): Promise<Process | undefined> {
    if (conflict.stored === undefined) return this.get(tenant, processId);
    return parseStoredProcess(conflict.stored, tenant, processId);
  }

  private async claimName(claim: NameClaim): Promise<{ fresh: boolean }> {
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      if (await this.putClaimIfAbsent(claim)) return { fresh: true };
      const held = await this.readClaim(claim);
      if (!held) continue;
      if (held.processId === claim.processId) return { fresh: false };
      if (await this.readProcessItem(claim.tenant, held.processId)) {
        throw new NameTaken(claim.sessionId, claim.name, held.processId);
      }
      if (this.now() - held.claimedAt < this.abandonedClaimAfterMs) {
        throw new NameTaken(claim.sessionId, claim.name, held.processId);
      }
      if (await this.replaceClaimIf(claim, held)) return { fresh: true };
    }
    // Only reachable when the claim keeps vanishing and reappearing under us.
    throw new NameTaken(claim.sessionId, claim.name);
  }

  /** Best effort: a claim left behind is reclaimable after the grace period anyway. */
  private async releaseClaim(claim: NameClaim): Promise<void> {
    try {
      await this.deleteClaimIf(claim);
    } catch {
      // The caller's original error is what matters.
    }
  }

  private validated(candidate: Process): Process {
    const parsed = Process.safeParse(candidate);
    if (!parsed.success) throw new ProcessStateInvalid(candidate.processId, describeIssues(parsed.error.issues));
    const bytes = Buffer.byteLength(JSON.stringify(parsed.data), "utf8");
    if (bytes > this.maxProcessBytes) throw new ProcessTooLarge(candidate.processId, bytes, this.maxProcessBytes);
    return parsed.data;
  }
}

/** Stored items lose `undefined` fields and key order; compare what is stored. */
const sameState = (a: Process, b: Process): boolean => isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
