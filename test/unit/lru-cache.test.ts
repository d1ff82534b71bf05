import { describe, expect, it } from "vitest";
import { LruCache } from "../../shared/templates/lru-cache.js";

/** The textbook LRU on Map order (re-insert on every hit), as the oracle. */
class ReferenceLru {
  private readonly entries = new Map<string, number>();
  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight: number,
  ) {}

  get(key: string): number | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: number): void {
    this.entries.delete(key);
    if (value > this.maxWeight) return;
    this.entries.set(key, value);
    const total = (): number => [...this.entries.values()].reduce((sum, v) => sum + v, 0);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && total() <= this.maxWeight) break;
      this.entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }
}

describe("LruCache recency", () => {
  it("evicts exactly what a least-recently-used map evicts, over a long mix of gets, sets and deletes", () => {
    // Prepare
    const cache = new LruCache<string, number>(8, 40, (value) => value);
    const reference = new ReferenceLru(8, 40);
    let seed = 12345;
    const random = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const mismatches: string[] = [];

    // Act
    for (let step = 0; step < 5000; step++) {
      const key = `k${random(14)}`;
      const op = random(10);
      if (op < 5) {
        if (cache.get(key) !== reference.get(key)) mismatches.push(`get ${key} at ${step}`);
      } else if (op < 9) {
        const value = random(12);
        cache.set(key, value);
        reference.set(key, value);
      } else {
        cache.delete(key);
        reference.delete(key);
      }
      if (cache.size !== reference.keys().length) mismatches.push(`size at ${step}`);
    }
    const survivors = reference.keys().map((key) => [key, cache.get(key)]);

    // Assess
    expect(mismatches).toEqual([]);
    expect(survivors.every(([, value]) => value !== undefined)).toBe(true);
  });

  it("starts empty again after clear and keeps bounding", () => {
    // Prepare
    const cache = new LruCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);

    // Act
    cache.clear();
    cache.set("c", 3);
    cache.set("d", 4);
    cache.get("c");
    cache.set("e", 5);

    // Assess
    expect(cache.size).toBe(2);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("d")).toBeUndefined();
    expect(cache.get("c")).toBe(3);
    expect(cache.get("e")).toBe(5);
  });
});
