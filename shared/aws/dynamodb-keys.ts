import { TABLE_TTL_ATTRIBUTE } from "./table-schema.js";

/**
 * Keys of the single table. The tenant leads every partition key, so another tenant's id
 * addresses a different item and is simply not found. Components are URI-encoded: `#` cannot
 * appear inside one, so a crafted id (e.g. a requestId `x#R#y`) cannot forge another key.
 */
const part = (value: string): string => encodeURIComponent(value);

export interface TableKey {
  pk: string;
  sk: string;
}

export const processItemKey = (tenant: string, processId: string): TableKey => ({
  pk: `T#${part(tenant)}#P#${part(processId)}`,
  sk: "PROCESS",
});

/** Sessions are per user (API.md): one partition per (tenant, user, session), so listing a session is one query. */
export const nameClaimPartition = (tenant: string, owner: string, sessionId: string): string =>
  `T#${part(tenant)}#U#${part(owner)}#S#${part(sessionId)}`;

export const NAME_CLAIM_SORT_PREFIX = "NAME#";

export const nameClaimKey = (tenant: string, owner: string, sessionId: string, name: string): TableKey => ({
  pk: nameClaimPartition(tenant, owner, sessionId),
  sk: `${NAME_CLAIM_SORT_PREFIX}${part(name)}`,
});

/** The tenant a request item's key names (the inverse of requestItemKey's first part); undefined for another key. */
export const tenantOfRequestKey = (pk: string): string | undefined => {
  const match = /^T#([^#]*)#P#[^#]*#R#[^#]*$/.exec(pk);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
};

/** requestIds are scoped to their process (API.md): the same id on two processes is two requests. */
export const requestItemKey = (tenant: string, processId: string, requestId: string): TableKey => ({
  pk: `T#${part(tenant)}#P#${part(processId)}#R#${part(requestId)}`,
  sk: "REQUEST",
});

/** A process's WebSocket subscriber partition: one item per subscribed connection (shared/connections/dynamodb-connection-keys.ts). */
export const processSubscribersPartition = (tenant: string, processId: string): string => `T#${part(tenant)}#PS#${part(processId)}`;

/**
 * One item per process that anyone has subscribed to, in its subscriber partition, living as long
 * as the longest subscription: a lane turn reads it with its process (one BatchGetItem) and skips
 * the subscribers query when it is absent or expired. `subscribe` writes it before the subscriber item.
 */
export const processSubscribersMarkerKey = (tenant: string, processId: string): TableKey => ({
  pk: processSubscribersPartition(tenant, processId),
  sk: SUBSCRIBERS_MARKER_SORT_KEY,
});

export const SUBSCRIBERS_MARKER_SORT_KEY = "ANY";

/** Whether a marker item (or its absence) says someone may be subscribed at `nowMs`. */
export const subscribersMarkerLive = (item: Record<string, unknown> | undefined, nowMs: number): boolean =>
  typeof item?.[TABLE_TTL_ATTRIBUTE] === "number" && (item[TABLE_TTL_ATTRIBUTE] as number) > Math.floor(nowMs / 1000);
