import { FOOT_INVOCATION_TTL_SECONDS, FootInvocation } from "./foot-invocation-store.js";
import type { FootAnswer, FootInvocationStore, FootInvocationStoreOptions, NewFootInvocation } from "./foot-invocation-store.js";

const key = (tenant: string, invocationId: string): string => JSON.stringify([tenant, invocationId]);

/** FootInvocationStore on a Map with the DynamoDB adapter's rules (tests, single-process runs). */
export class InMemoryFootInvocationStore implements FootInvocationStore {
  private readonly items = new Map<string, { invocation: FootInvocation; expiresAtMs: number }>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: FootInvocationStoreOptions = {}) {
    this.ttlMs = (options.ttlSeconds ?? FOOT_INVOCATION_TTL_SECONDS) * 1000;
    this.now = options.now ?? Date.now;
  }

  async create(tenant: string, invocation: NewFootInvocation): Promise<void> {
    if (this.live(tenant, invocation.invocationId)) throw new TypeError(`FOOT invocation '${invocation.invocationId}' exists already`);
    const stored = FootInvocation.parse({ ...invocation, status: "PENDING" });
    this.items.set(key(tenant, invocation.invocationId), { invocation: stored, expiresAtMs: this.now() + this.ttlMs });
  }

  async get(tenant: string, invocationId: string): Promise<FootInvocation | undefined> {
    const item = this.live(tenant, invocationId);
    return item === undefined ? undefined : structuredClone(item.invocation);
  }

  async answer(tenant: string, invocationId: string, connectionId: string, answer: FootAnswer): Promise<boolean> {
    const item = this.live(tenant, invocationId);
    if (!item || item.invocation.status !== "PENDING" || item.invocation.connectionId !== connectionId) return false;
    // JSON round trip: what the DynamoDB adapter would store and hand back.
    const detail = JSON.parse(
      JSON.stringify(answer.status === "DONE" ? { result: answer.result ?? null } : { error: answer.error }),
    ) as object;
    item.invocation = FootInvocation.parse({
      ...item.invocation,
      status: answer.status,
      ...detail,
      ...(answer.logs ? { logs: answer.logs } : {}),
    });
    return true;
  }

  async remove(tenant: string, invocationId: string): Promise<void> {
    this.items.delete(key(tenant, invocationId));
  }

  private live(tenant: string, invocationId: string): { invocation: FootInvocation; expiresAtMs: number } | undefined {
    const item = this.items.get(key(tenant, invocationId));
    if (item && item.expiresAtMs <= this.now()) {
      this.items.delete(key(tenant, invocationId));
      return undefined;
    }
    return item;
  }
}
