import type { LevelSnapshotStore } from "./level-snapshot-store.js";

/** LevelSnapshotStore in process memory: unit tests. */
export class InMemoryLevelSnapshotStore implements LevelSnapshotStore {
  readonly objects = new Map<string, Uint8Array>();

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.objects.get(key);
  }

  async put(key: string, body: Uint8Array): Promise<void> {
    this.objects.set(key, body);
  }

  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }
}
