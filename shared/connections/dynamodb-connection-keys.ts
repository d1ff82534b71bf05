import type { TableKey } from "../aws/dynamodb-keys.js";
import { processSubscribersPartition } from "../aws/dynamodb-keys.js";

/**
 * Keys of connection items in the service table, in the style of processes/dynamodb-keys.ts:
 * tenant first, URI-encoded parts, so a crafted connection or process id cannot forge a key.
 *
 * A connection's partition holds its record and one back-reference per subscription, so
 * `$disconnect` finds everything to delete with one query; a process's subscriber partition
 * holds one item per subscribed connection, so the fan-out is one query too (no index needed).
 */
const part = (value: string): string => encodeURIComponent(value);

export const CONNECTION_SORT_KEY = "CONNECTION";
export const SUBSCRIPTION_SORT_PREFIX = "SUB#";
const SUBSCRIBER_SORT_PREFIX = "C#";

export const connectionPartition = (tenant: string, connectionId: string): string => `T#${part(tenant)}#C#${part(connectionId)}`;

// The subscriber partition and its marker live with the table's keys: a lane turn reads the marker (catalogue/, below this folder).
export {
  processSubscribersMarkerKey,
  processSubscribersPartition,
  subscribersMarkerLive,
  SUBSCRIBERS_MARKER_SORT_KEY,
} from "../aws/dynamodb-keys.js";

export const connectionItemKey = (tenant: string, connectionId: string): TableKey => ({
  pk: connectionPartition(tenant, connectionId),
  sk: CONNECTION_SORT_KEY,
});

/** The back-reference in the connection's partition. */
export const connectionSubscriptionKey = (tenant: string, connectionId: string, processId: string): TableKey => ({
  pk: connectionPartition(tenant, connectionId),
  sk: `${SUBSCRIPTION_SORT_PREFIX}${part(processId)}`,
});

/** The item the fan-out reads, in the process's subscriber partition. */
export const processSubscriberKey = (tenant: string, processId: string, connectionId: string): TableKey => ({
  pk: processSubscribersPartition(tenant, processId),
  sk: `${SUBSCRIBER_SORT_PREFIX}${part(connectionId)}`,
});

/** One item per open connection of a user, so the per-identity socket cap is one query. */
export const identityConnectionsPartition = (tenant: string, login: string): string => `T#${part(tenant)}#UC#${part(login)}`;

export const identityConnectionKey = (tenant: string, login: string, connectionId: string): TableKey => ({
  pk: identityConnectionsPartition(tenant, login),
  sk: `${SUBSCRIBER_SORT_PREFIX}${part(connectionId)}`,
});
