interface Node<K, V> {
  key: K;
  value: V;
  weight: number;
  /** Neighbours in recency order: `older` towards the eviction end, `newer` towards the most recent. */
  older: Node<K, V> | undefined;
  newer: Node<K, V> | undefined;
}

/**
 * A small least-recently-used map bounded by entry count and, optionally, by total weight
 * (e.g. characters of cached output), so hostile inputs cannot grow it without limit.
 *
 * Recency is a linked list beside the map, so a hit relinks two nodes and writes nothing into the
 * map: re-inserting on every hit (the usual Map-order trick) kept the map's table churning and
 * handed it the caller's freshly built key each time, which the next scavenge then had to copy.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, Node<K, V>>();
  private oldest: Node<K, V> | undefined;
  private newest: Node<K, V> | undefined;
  private totalWeight = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight = Number.POSITIVE_INFINITY,
    private readonly weigh: (value: V) => number = () => 0,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const node = this.entries.get(key);
    if (node === undefined) return undefined;
    if (node !== this.newest) {
      this.unlink(node);
      this.append(node);
    }
    return node.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.weigh(value);
    if (this.maxEntries <= 0 || weight > this.maxWeight) return;
    const node: Node<K, V> = { key, value, weight, older: undefined, newer: undefined };
    this.entries.set(key, node);
    this.append(node);
    this.totalWeight += weight;
    while (this.oldest !== undefined && (this.entries.size > this.maxEntries || this.totalWeight > this.maxWeight)) {
      this.delete(this.oldest.key);
    }
  }

  delete(key: K): void {
    const node = this.entries.get(key);
    if (node === undefined) return;
    this.entries.delete(key);
    this.unlink(node);
    this.totalWeight -= node.weight;
  }

  clear(): void {
    this.entries.clear();
    this.oldest = undefined;
    this.newest = undefined;
    this.totalWeight = 0;
  }

  private append(node: Node<K, V>): void {
    node.older = this.newest;
    node.newer = undefined;
    if (this.newest === undefined) this.oldest = node;
    else this.newest.newer = node;
    this.newest = node;
  }

  private unlink(node: Node<K, V>): void {
    if (node.older === undefined) this.oldest = node.newer;
    else node.older.newer = node.newer;
    if (node.newer === undefined) this.newest = node.older;
    else node.newer.older = node.older;
    node.older = undefined;
    node.newer = undefined;
  }
}
