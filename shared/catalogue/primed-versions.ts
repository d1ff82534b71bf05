import type { SkillScopeContext } from "../documents/cascade-scope.js";
import type { LevelVersion } from "./catalogue-versions.js";

/** Level versions of one tenant read together with a process (ProcessVersionsReader). */
export class PrimedVersions {
  constructor(
    readonly tenant: string,
    readonly versions: ReadonlyMap<string, LevelVersion>,
  ) {}
}

const primedProcesses = new WeakMap<object, PrimedVersions>();

/**
 * A copy of `process` that carries the versions read together with it: scopes made from the copy
 * (steering's scopeOf) hand them to the catalogue. A copy, so an object a store hands out again
 * (an in-memory store returns the same one) never carries one turn's versions into a later
 * request; states derived from the copy by a write are new objects and read their own.
 */
export function primeProcess<P extends object>(process: P, primed: PrimedVersions): P {
  const copy = { ...process };
  primedProcesses.set(copy, primed);
  return copy;
}

/** The versions `primeProcess` attached to this very object, if any. */
export const primedVersionsOfProcess = (process: object): PrimedVersions | undefined => primedProcesses.get(process);

/** The versions a scope carries for its own tenant; another tenant's are never used. */
export function primedVersionsOf(scope: SkillScopeContext): ReadonlyMap<string, LevelVersion> | undefined {
  const primed = scope.catalogueVersions;
  return primed instanceof PrimedVersions && primed.tenant === scope.tenantId ? primed.versions : undefined;
}
