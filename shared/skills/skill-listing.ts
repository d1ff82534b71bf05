/** What a lookup by name needs of a listed skill; ResolvedSkill satisfies it. */
interface Named {
  readonly name: string;
}

const byFrozenListing = new WeakMap<readonly Named[], ReadonlyMap<string, Named>>();

/**
 * The skills of a listing by name (the first one where a hand-made list repeats a name, as
 * `find` would answer). A frozen listing (the catalogue hands out the same frozen array while
 * nothing changed) is indexed once; a turn then looks up its active skills without walking a
 * thousand skill objects per name. Any other array is indexed afresh, since it may change.
 */
export function skillsByName<T extends Named>(listing: readonly T[]): ReadonlyMap<string, T> {
  let map = byFrozenListing.get(listing) as ReadonlyMap<string, T> | undefined;
  if (map !== undefined) return map;
  const built = new Map<string, T>();
  for (const skill of listing) if (!built.has(skill.name)) built.set(skill.name, skill);
  map = built;
  if (Object.isFrozen(listing)) byFrozenListing.set(listing, map);
  return map;
}
