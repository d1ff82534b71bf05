import { rowOwner, utcDay, visibleTo } from "./skill-usage.js";
import type { SkillUsageStore, UsageAnswer, UsageEvent, UsageQuery } from "./skill-usage.js";

/**
 * Recent usage for the catalog's ties (issue 26): the activations this instance counted in the
 * last RECENT_USAGE_DAYS UTC days, per project and skill. A decorator of the usage store, fed by
 * the same `count` the lane applier already makes, so a turn learns recent usage without a
 * request of its own (a steady turn stays at 2 DynamoDB requests); the price is that each
 * instance sees its own activations only. Refusals are not usage. Private rows (a USER skill's)
 * count only for their owner, as the usage route shows them.
 *
 * Bounded: MAX_TRACKED_PROJECTS projects (the least recently counted one goes first) and
 * MAX_TRACKED_NAMES skills each.
 */
export const RECENT_USAGE_DAYS = 7;
const MAX_TRACKED_PROJECTS = 256;
const MAX_TRACKED_NAMES = 2_000;

interface Tally {
  name: string;
  owner: string | undefined;
  source: UsageEvent["source"];
  /** UTC day → activations that day. */
  days: Map<string, number>;
}

export interface RecentUsage {
  /** Activations per skill name the viewer may see, in the last RECENT_USAGE_DAYS days: a snapshot, never changed later. */
  recent(tenant: string, projectId: string, viewer: string | undefined, now: Date): ReadonlyMap<string, number>;
}

export class RecentUsageTally implements SkillUsageStore, RecentUsage {
  private readonly projects = new Map<string, Map<string, Tally>>();

  constructor(private readonly inner: SkillUsageStore) {}

  async count(event: UsageEvent): Promise<void> {
    if (event.counter !== "refused") this.record(event);
    await this.inner.count(event);
  }

  read(query: UsageQuery): Promise<UsageAnswer> {
    return this.inner.read(query);
  }

  recent(tenant: string, projectId: string, viewer: string | undefined, now: Date): ReadonlyMap<string, number> {
    const tallies = this.projects.get(projectKey(tenant, projectId));
    const out = new Map<string, number>();
    if (tallies === undefined) return out;
    const from = utcDay(new Date(now.getTime() - (RECENT_USAGE_DAYS - 1) * 86_400_000));
    for (const tally of tallies.values()) {
      if (!visibleTo(viewer ?? "", tally.source, tally.owner)) continue;
      let sum = 0;
      for (const [day, n] of tally.days) if (day >= from) sum += n;
      if (sum > 0) out.set(tally.name, (out.get(tally.name) ?? 0) + sum);
    }
    return out;
  }

  private record(event: UsageEvent): void {
    const key = projectKey(event.tenant, event.projectId);
    let tallies = this.projects.get(key);
    if (tallies !== undefined) this.projects.delete(key);
    else {
      tallies = new Map();
      if (this.projects.size >= MAX_TRACKED_PROJECTS) this.projects.delete(this.projects.keys().next().value as string);
    }
    this.projects.set(key, tallies);
    const owner = rowOwner(event);
    const nameKey = JSON.stringify([event.name, event.source, owner ?? null]);
    let tally = tallies.get(nameKey);
    if (tally === undefined) {
      if (tallies.size >= MAX_TRACKED_NAMES) return;
      tally = { name: event.name, owner, source: event.source, days: new Map() };
      tallies.set(nameKey, tally);
    }
    const day = utcDay(event.at);
    tally.days.set(day, (tally.days.get(day) ?? 0) + 1);
    // Days past the window are dropped as new ones come: a tally holds at most a week of days.
    if (tally.days.size > RECENT_USAGE_DAYS) {
      const from = utcDay(new Date(event.at.getTime() - (RECENT_USAGE_DAYS - 1) * 86_400_000));
      for (const d of [...tally.days.keys()]) if (d < from) tally.days.delete(d);
    }
  }
}

const projectKey = (tenant: string, projectId: string): string => `${tenant}\u0000${projectId}`;
