import type { SkillSummary } from "../client/index.js";

export interface SkillNamesOptions {
  /** A miss refreshes at most once per this many milliseconds (repeated Tabs on a typo do not hammer the service). */
  minMissIntervalMs?: number;
  /** A Tab waits at most this long for the refresh, then completes from what it has. */
  timeoutMs?: number;
  now?: () => number;
}

/**
 * The effective skills completion and "did you mean" read. Loaded at start and by `/skill list`;
 * a completion that finds no name reloads them (throttled, time-boxed), so a skill pushed after
 * the chat started completes without `/skill list`.
 */
export class SkillNames {
  private current: SkillSummary[] = [];
  private lastMissRefresh = Number.NEGATIVE_INFINITY;
  private readonly minMissIntervalMs: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(
    private readonly load: () => Promise<SkillSummary[]>,
    options: SkillNamesOptions = {},
  ) {
    this.minMissIntervalMs = options.minMissIntervalMs ?? 2_000;
    this.timeoutMs = options.timeoutMs ?? 3_000;
    this.now = options.now ?? Date.now;
  }

  get skills(): readonly SkillSummary[] {
    return this.current;
  }

  set(skills: SkillSummary[]): void {
    this.current = skills;
  }

  async refresh(): Promise<readonly SkillSummary[]> {
    this.current = await this.load();
    return this.current;
  }

  /** After a miss: reloads unless one did so lately; resolves false when it did not reload (throttled, failed or too slow). */
  async refreshAfterMiss(): Promise<boolean> {
    const now = this.now();
    if (now - this.lastMissRefresh < this.minMissIntervalMs) return false;
    this.lastMissRefresh = now;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.timeoutMs)));
    try {
      return await Promise.race([
        this.refresh().then(
          () => true as const,
          () => false as const,
        ),
        timedOut,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
