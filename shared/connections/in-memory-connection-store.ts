import type { Identity } from "../auth/identity.js";
import { CONNECTION_TTL_SECONDS, connectionExpiry, epochSeconds } from "./connection-store.js";
import type { ConnectionRecord, ConnectionStore, ConnectionStoreOptions, NewConnection, SubscribeOptions } from "./connection-store.js";

const key = (tenant: string, id: string): string => JSON.stringify([tenant, id]);

const copyIdentity = (identity: Identity): Identity => ({
  login: identity.login,
  tenant: identity.tenant,
  projects: [...identity.projects],
  roles: [...identity.roles],
});

/** ConnectionStore on Maps, with the same expiry rules as the DynamoDB adapter (tests, local runs). */
export class InMemoryConnectionStore implements ConnectionStore {
  private readonly connections = new Map<string, ConnectionRecord>();
  /** key(tenant, processId) → connectionId → expiresAt */
  private readonly byProcess = new Map<string, Map<string, number>>();
  /** key(tenant, connectionId) → processId → expiresAt */
  private readonly byConnection = new Map<string, Map<string, number>>();
  private readonly ttlSeconds: number;
  private readonly clock: () => Date;

  constructor(options: ConnectionStoreOptions = {}) {
    this.ttlSeconds = options.ttlSeconds ?? CONNECTION_TTL_SECONDS;
    this.clock = options.clock ?? (() => new Date());
  }

  async put(connection: NewConnection): Promise<ConnectionRecord> {
    const now = this.clock();
    const record: ConnectionRecord = {
      connectionId: connection.connectionId,
      identity: copyIdentity(connection.identity),
      connectedAt: now.toISOString(),
      expiresAt: connectionExpiry(now, this.ttlSeconds, connection.tokenExpiresAt),
    };
    this.connections.set(key(connection.identity.tenant, connection.connectionId), record);
    return structuredClone(record);
  }

  async get(tenant: string, connectionId: string): Promise<ConnectionRecord | undefined> {
    const record = this.connections.get(key(tenant, connectionId));
    return record && this.live(record.expiresAt) ? structuredClone(record) : undefined;
  }

  async remove(tenant: string, connectionId: string): Promise<void> {
    const own = this.byConnection.get(key(tenant, connectionId));
    for (const processId of own?.keys() ?? []) {
      const subscribers = this.byProcess.get(key(tenant, processId));
      subscribers?.delete(connectionId);
      if (subscribers?.size === 0) this.byProcess.delete(key(tenant, processId));
    }
    this.byConnection.delete(key(tenant, connectionId));
    this.connections.delete(key(tenant, connectionId));
  }

  async subscribe(tenant: string, connectionId: string, processId: string, options: SubscribeOptions = {}): Promise<void> {
    const expiresAt = connectionExpiry(this.clock(), this.ttlSeconds, options.notAfter);
    const own = this.byConnection.get(key(tenant, connectionId)) ?? new Map<string, number>();
    own.set(processId, expiresAt);
    this.byConnection.set(key(tenant, connectionId), own);
    const subscribers = this.byProcess.get(key(tenant, processId)) ?? new Map<string, number>();
    subscribers.set(connectionId, expiresAt);
    this.byProcess.set(key(tenant, processId), subscribers);
  }

  async countOpen(tenant: string, login: string): Promise<number> {
    let count = 0;
    for (const record of this.connections.values()) {
      if (record.identity.tenant === tenant && record.identity.login === login && this.live(record.expiresAt)) count++;
    }
    return count;
  }

  async subscriptionsOf(tenant: string, connectionId: string): Promise<string[]> {
    return this.liveKeys(this.byConnection.get(key(tenant, connectionId)));
  }

  async subscribers(tenant: string, processId: string): Promise<string[]> {
    return this.liveKeys(this.byProcess.get(key(tenant, processId)));
  }

  /** Raw expiry of a subscription, for tests of the TTL arithmetic. */
  subscriptionExpiresAt(tenant: string, connectionId: string, processId: string): number | undefined {
    return this.byConnection.get(key(tenant, connectionId))?.get(processId);
  }

  private live(expiresAt: number): boolean {
    return expiresAt > epochSeconds(this.clock());
  }

  private liveKeys(entries: Map<string, number> | undefined): string[] {
    return [...(entries ?? new Map<string, number>())].filter(([, expiresAt]) => this.live(expiresAt)).map(([id]) => id);
  }
}
