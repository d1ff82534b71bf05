import type { Process } from "./process.js";
import { ProcessVersionConflict } from "./process-errors.js";
import { BaseProcessStore } from "./process-store-base.js";
import type { ClaimKey, NameClaim, ProcessStoreOptions } from "./process-store-base.js";

/**
 * ProcessStore on Maps, with the same conditional semantics as DynamoDB (the rules are the
 * shared base). Values are copied in and out so callers cannot change stored state by accident.
 * The `inject…` hooks let unit tests of domain logic lose optimistic races on purpose.
 */
export class InMemoryProcessStore extends BaseProcessStore {
  private readonly processes = new Map<string, Process>();
  private readonly claims = new Map<string, NameClaim>();
  private readonly concurrentChanges: { key: string; change: (p: Process) => Process }[] = [];
  private forcedConflicts = 0;
  /** Conditional process writes attempted by `update` (won or lost). */
  writeAttempts = 0;
  /** Process item reads (`get`, and `update` reading when it has no snapshot or state to start from), to tell a write from a snapshot apart from a read-and-write. */
  processReads = 0;
  /**
   * A conflict carries the stored process, as DynamoDB returns it with ALL_OLD, so `update`
   * re-applies without reading. false models an endpoint that returns no item (dynalite 4.0.0).
   */
  conflictsCarryStored = true;

  constructor(options: ProcessStoreOptions = {}) {
    super({ sleep: async () => {}, ...options });
  }

  /**
   * Just before the next write of this process, `change` is applied and stored as if another
   * writer won the race; the pending write then conflicts and `update` must re-apply on top.
   */
  injectConcurrentUpdate(tenant: string, processId: string, change: (current: Process) => Process): void {
    this.concurrentChanges.push({ key: processKey(tenant, processId), change });
  }

  /** The next `count` conditional writes report a conflict without storing anything. */
  injectConflicts(count: number): void {
    this.forcedConflicts += count;
  }

  /** Test setup: a claim whose create died before the process was written. */
  seedClaim(claim: NameClaim): void {
    this.claims.set(claimKey(claim), { ...claim });
  }

  protected async readProcessItem(tenant: string, processId: string): Promise<unknown> {
    this.processReads++;
    const stored = this.processes.get(processKey(tenant, processId));
    return stored === undefined ? undefined : structuredClone(stored);
  }

  protected async putProcessIfAbsent(process: Process): Promise<void> {
    const key = processKey(process.tenant, process.processId);
    if (this.processes.has(key)) throw this.conflict(key, process.processId);
    this.processes.set(key, structuredClone(process));
  }

  protected async replaceProcessIfVersion(process: Process, expectedVersion: number): Promise<void> {
    const key = processKey(process.tenant, process.processId);
    this.writeAttempts++;
    this.applyInjectedChange(key);
    if (this.forcedConflicts > 0) {
      this.forcedConflicts--;
      throw this.conflict(key, process.processId);
    }
    if (this.processes.get(key)?.version !== expectedVersion) throw this.conflict(key, process.processId);
    this.processes.set(key, structuredClone(process));
  }

  protected async deleteProcessIfVersion(tenant: string, processId: string, version: number): Promise<void> {
    const key = processKey(tenant, processId);
    if (this.processes.get(key)?.version === version) this.processes.delete(key);
  }

  protected async putClaimIfAbsent(claim: NameClaim): Promise<boolean> {
    const key = claimKey(claim);
    if (this.claims.has(key)) return false;
    this.claims.set(key, { ...claim });
    return true;
  }

  protected async readClaim(key: ClaimKey): Promise<NameClaim | undefined> {
    const stored = this.claims.get(claimKey(key));
    return stored === undefined ? undefined : { ...stored };
  }

  protected async listClaims(tenant: string, owner: string, sessionId: string, limit: number): Promise<NameClaim[]> {
    return [...this.claims.values()]
      .filter((c) => c.tenant === tenant && (c.owner ?? "") === owner && c.sessionId === sessionId)
      .slice(0, limit)
      .map((c) => ({ ...c }));
  }

  protected async replaceClaimIf(claim: NameClaim, expected: NameClaim): Promise<boolean> {
    const key = claimKey(claim);
    const stored = this.claims.get(key);
    if (stored?.processId !== expected.processId || stored.claimedAt !== expected.claimedAt) return false;
    this.claims.set(key, { ...claim });
    return true;
  }

  protected async deleteClaimIf(claim: NameClaim): Promise<void> {
    const key = claimKey(claim);
    if (this.claims.get(key)?.processId === claim.processId) this.claims.delete(key);
  }

  /** The conflict of a write on `key`, with a copy of what is stored (undefined when nothing is). */
  private conflict(key: string, processId: string): ProcessVersionConflict {
    const stored = this.processes.get(key);
    return new ProcessVersionConflict(processId, this.conflictsCarryStored && stored !== undefined ? structuredClone(stored) : undefined);
  }

  private applyInjectedChange(key: string): void {
    const index = this.concurrentChanges.findIndex((c) => c.key === key);
    if (index < 0) return;
    const [injected] = this.concurrentChanges.splice(index, 1);
    const stored = this.processes.get(key);
    if (!injected || !stored) return;
    const changed = injected.change(structuredClone(stored));
    this.processes.set(key, { ...changed, version: stored.version + 1 });
  }
}

// JSON arrays as keys: no separator a tenant or name could contain can make two keys collide.
const processKey = (tenant: string, processId: string): string => JSON.stringify([tenant, processId]);
const claimKey = (claim: ClaimKey): string => JSON.stringify([claim.tenant, claim.owner ?? "", claim.sessionId, claim.name]);
