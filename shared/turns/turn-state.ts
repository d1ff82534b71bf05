import { LRUCache } from "lru-cache";
import { PrimedVersions, primeProcess } from "../catalogue/primed-versions.js";
import type { ProcessReadOptions, ProcessVersionsReader, ProcessWithVersions } from "../catalogue/process-versions-reader.js";
import { cascadeLevels } from "../documents/cascade-layers.js";
import type { Process } from "../processes/process.js";
import type { ProcessStore } from "../processes/process-store.js";
import { scopeOf } from "../steering/steer-context.js";

/**
 * The process a turn starts from. Where the catalogue versions were read along with it, the
 * object carries them (catalogue/primed-versions.ts): the turn's lookups, scoped by it
 * (steering's scopeOf), read no versions of their own.
 */
export interface TurnState {
  process: Process;
}

/** A turn's state as the lane reads it before applying: with what came in the same round trip. */
export interface LaneTurnRead extends Pick<ProcessWithVersions, "request" | "mayHaveSubscribers"> {
  /** undefined for an unknown process or another tenant's. */
  state: TurnState | undefined;
}

/** Where SkillTurnSupport reads the process a turn starts from. */
export interface TurnStates {
  /** undefined for an unknown process or another tenant's, as ProcessStore.get. */
  load(tenant: string, processId: string): Promise<TurnState | undefined>;
  /** load, plus the request's record and the subscription marker where the store reads them along. */
  loadForLane?(tenant: string, processId: string, options: Required<ProcessReadOptions>): Promise<LaneTurnRead>;
}

/** Without a warm catalogue: the process alone; each lookup reads what it needs itself. */
export class StoreTurnStates implements TurnStates {
  constructor(private readonly store: Pick<ProcessStore, "get">) {}

  async load(tenant: string, processId: string): Promise<TurnState | undefined> {
    const process = await this.store.get(tenant, processId);
    return process && { process };
  }
}

export interface WarmTurnStatesOptions {
  /** Processes whose cascade levels are remembered; the least recently used is forgotten beyond it. */
  maxProcesses?: number;
}

const DEFAULT_MAX_PROCESSES = 4096;

/**
 * With the warm catalogue: the process and the versions of its cascade levels in ONE read
 * (ProcessVersionsReader), and the turn's lookups validate against those versions instead of
 * reading them again. The levels derive from the process (tenant, user, project), so they are
 * known only after it is read: the read asks for the levels the process had when this instance
 * last saw it. Those fields never change after a spawn, so a warm instance guesses right every
 * time; a process it has not seen yet (or whose levels differ) leaves the missing levels to the
 * catalogue's own versions read, one request more.
 */
export class WarmTurnStates implements TurnStates {
  private readonly levels: LRUCache<string, readonly string[]>;

  constructor(
    private readonly reader: ProcessVersionsReader,
    options: WarmTurnStatesOptions = {},
  ) {
    this.levels = new LRUCache({ max: options.maxProcesses ?? DEFAULT_MAX_PROCESSES });
  }

  async load(tenant: string, processId: string): Promise<TurnState | undefined> {
    return (await this.loadForLane(tenant, processId)).state;
  }

  async loadForLane(tenant: string, processId: string, options: ProcessReadOptions = {}): Promise<LaneTurnRead> {
    const key = JSON.stringify([tenant, processId]);
    const { process, versions, request, mayHaveSubscribers } = await this.reader.read(
      tenant,
      processId,
      this.levels.get(key) ?? [],
      options,
    );
    const along = { ...(request ? { request } : {}), ...(mayHaveSubscribers !== undefined ? { mayHaveSubscribers } : {}) };
    if (!process) {
      this.levels.delete(key);
      return { state: undefined, ...along };
    }
    const projects = storeLevelsOf(process);
    if (projects) this.levels.set(key, projects);
    else this.levels.delete(key);
    return { state: { process: primeProcess(process, new PrimedVersions(tenant, versions)) }, ...along };
  }
}

/**
 * The document projects of the process's store levels (RESOURCE has no version). undefined for a
 * malformed scope: the turn's lookups reject it themselves, with the error they always gave.
 */
function storeLevelsOf(process: Process): string[] | undefined {
  try {
    return cascadeLevels(scopeOf(process))
      .filter((level) => level.source !== "RESOURCE")
      .map((level) => level.project);
  } catch {
    return undefined;
  }
}
