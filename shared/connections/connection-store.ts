import type { Identity } from "../auth/identity.js";

/**
 * WebSocket connections and their process subscriptions (DESIGN.md "Data"). A connection is
 * registered on `$connect` with the identity its token proved; subscriptions map a process to
 * the connections that want its results and scheduled turns. Every key starts with the tenant,
 * so a lookup for one tenant never sees another tenant's connections.
 * Adapters: in-memory-connection-store.ts, dynamodb-connection-store.ts.
 */
export interface ConnectionRecord {
  connectionId: string;
  /** Snapshot of the identity at `$connect` (the authorizer context), for logs and inspection. */
  identity: Identity;
  connectedAt: string;
  /** Epoch seconds after which the record may be deleted (DynamoDB TTL); never after the token's expiry. */
  expiresAt: number;
}

export interface NewConnection {
  connectionId: string;
  identity: Identity;
  /** The token's `exp` (epoch seconds): the connection is not live past it. */
  tokenExpiresAt?: number;
}

export interface SubscribeOptions {
  /** Epoch seconds: the subscription ends then at the latest (the connection's token expiry). */
  notAfter?: number;
}

export interface ConnectionStore {
  /** Registers (or re-registers) a connection; the tenant is the identity's. */
  put(connection: NewConnection): Promise<ConnectionRecord>;
  /** undefined when unknown, removed, or past its expiry (TTL deletion is lazy). */
  get(tenant: string, connectionId: string): Promise<ConnectionRecord | undefined>;
  /** Removes the connection and every subscription it holds; unknown connections are a no-op. */
  remove(tenant: string, connectionId: string): Promise<void>;
  /** Idempotent. */
  subscribe(tenant: string, connectionId: string, processId: string, options?: SubscribeOptions): Promise<void>;
  /** Live connections of one user of the tenant (the per-identity socket cap at `$connect`). */
  countOpen(tenant: string, login: string): Promise<number>;
  /** Process ids the connection is subscribed to. */
  subscriptionsOf(tenant: string, connectionId: string): Promise<string[]>;
  /** Connection ids subscribed to the process (expired subscriptions left out). */
  subscribers(tenant: string, processId: string): Promise<string[]>;
}

/**
 * API Gateway closes a WebSocket connection after 2 hours at most, so a record that outlives
 * that by a margin can only belong to a connection whose `$disconnect` never ran.
 */
export const CONNECTION_TTL_SECONDS = 2 * 3600 + 10 * 60;

/** Bounds the fan-out work per connection and the clean-up on `$disconnect`. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;

export interface ConnectionStoreOptions {
  ttlSeconds?: number;
  clock?: () => Date;
}

/** The record's expiry: the TTL from now, but never past the token's expiry. */
export const connectionExpiry = (now: Date, ttlSeconds: number, notAfter?: number): number =>
  Math.min(epochSeconds(now) + ttlSeconds, notAfter ?? Number.POSITIVE_INFINITY);

export const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);
