import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { TABLE_TTL_ATTRIBUTE } from "../aws/table-schema.js";
import { parseIdentity } from "../auth/identity.js";
import { documentClientOf, isConditionalCheckFailed } from "../aws/dynamodb-client.js";
import type { DynamoDBClientLike } from "../aws/dynamodb-client.js";
import type { TableKey } from "../aws/dynamodb-keys.js";
import { ConnectionCleanupIncomplete } from "./connection-errors.js";
import { CONNECTION_TTL_SECONDS, connectionExpiry, epochSeconds } from "./connection-store.js";
import type { ConnectionRecord, ConnectionStore, ConnectionStoreOptions, NewConnection, SubscribeOptions } from "./connection-store.js";
import {
  CONNECTION_SORT_KEY,
  SUBSCRIPTION_SORT_PREFIX,
  connectionItemKey,
  connectionPartition,
  connectionSubscriptionKey,
  identityConnectionKey,
  identityConnectionsPartition,
  processSubscriberKey,
  processSubscribersMarkerKey,
  processSubscribersPartition,
} from "./dynamodb-connection-keys.js";

/** BatchWriteItem takes at most 25 requests. */
const BATCH_SIZE = 25;
const BATCH_ATTEMPTS = 6;

type Item = Record<string, unknown>;

/**
 * ConnectionStore on the service table (keys: dynamodb-connection-keys.ts). Every item carries
 * `expiresAt`, so connections whose `$disconnect` was lost disappear by TTL; reads skip items
 * past their expiry because TTL deletion can lag by days.
 */
export class DynamoDBConnectionStore implements ConnectionStore {
  private readonly documents: DynamoDBDocumentClient;
  private readonly ttlSeconds: number;
  private readonly clock: () => Date;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    client: DynamoDBClientLike,
    private readonly tableName: string,
    options: ConnectionStoreOptions & { sleep?: (ms: number) => Promise<void> } = {},
  ) {
    this.documents = documentClientOf(client);
    this.ttlSeconds = options.ttlSeconds ?? CONNECTION_TTL_SECONDS;
    this.clock = options.clock ?? (() => new Date());
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  async put(connection: NewConnection): Promise<ConnectionRecord> {
    const now = this.clock();
    const { identity } = connection;
    const record: ConnectionRecord = {
      connectionId: connection.connectionId,
      identity: { login: identity.login, tenant: identity.tenant, projects: [...identity.projects], roles: [...identity.roles] },
      connectedAt: now.toISOString(),
      expiresAt: connectionExpiry(now, this.ttlSeconds, connection.tokenExpiresAt),
    };
    // The identity's index item first: a connection never exists uncounted by the socket cap.
    await this.documents.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...identityConnectionKey(identity.tenant, identity.login, connection.connectionId),
          entity: "identityConnection",
          connectionId: record.connectionId,
          [TABLE_TTL_ATTRIBUTE]: record.expiresAt,
        },
      }),
    );
    await this.documents.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...connectionItemKey(identity.tenant, connection.connectionId),
          entity: "connection",
          connectionId: record.connectionId,
          tenant: identity.tenant,
          login: identity.login,
          identity: record.identity,
          connectedAt: record.connectedAt,
          [TABLE_TTL_ATTRIBUTE]: record.expiresAt,
        },
      }),
    );
    return record;
  }

  async get(tenant: string, connectionId: string): Promise<ConnectionRecord | undefined> {
    const out = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: connectionItemKey(tenant, connectionId), ConsistentRead: true }),
    );
    const item = out.Item;
    if (!item || !this.live(item) || typeof item.connectedAt !== "string") return undefined;
    const identity = item.identity as Record<string, unknown> | undefined;
    return {
      connectionId,
      // Re-validated like any authorizer context: a corrupt item must not become an identity.
      identity: parseIdentity({ login: identity?.login, tenant: identity?.tenant, projects: identity?.projects, roles: identity?.roles }),
      connectedAt: item.connectedAt,
      expiresAt: item[TABLE_TTL_ATTRIBUTE] as number,
    };
  }

  async remove(tenant: string, connectionId: string): Promise<void> {
    const items = await this.queryAll(connectionPartition(tenant, connectionId));
    const subscriberItems: TableKey[] = [];
    const ownItems: TableKey[] = [];
    for (const item of items) {
      const sk = String(item.sk);
      if (sk.startsWith(SUBSCRIPTION_SORT_PREFIX) && typeof item.processId === "string") {
        subscriberItems.push(processSubscriberKey(tenant, item.processId, connectionId));
      }
      ownItems.push({ pk: String(item.pk), sk });
      if (sk === CONNECTION_SORT_KEY && typeof item.login === "string")
        subscriberItems.push(identityConnectionKey(tenant, item.login, connectionId));
    }
    // Fan-out items first: if this stops half-way, what is left is only reachable from here (or TTL).
    await this.batchDelete(subscriberItems);
    await this.batchDelete(ownItems.filter((k) => k.sk !== CONNECTION_SORT_KEY));
    await this.batchDelete(ownItems.filter((k) => k.sk === CONNECTION_SORT_KEY));
  }

  async subscribe(tenant: string, connectionId: string, processId: string, options: SubscribeOptions = {}): Promise<void> {
    const expiresAt = connectionExpiry(this.clock(), this.ttlSeconds, options.notAfter);
    // Back-reference and marker first: a subscriber item without the one would survive
    // `$disconnect`, without the other a lane turn would not look for it.
    await Promise.all([
      this.markSubscribed(tenant, processId, expiresAt),
      this.documents.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...connectionSubscriptionKey(tenant, connectionId, processId),
            entity: "connectionSubscription",
            processId,
            [TABLE_TTL_ATTRIBUTE]: expiresAt,
          },
        }),
      ),
    ]);
    await this.documents.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...processSubscriberKey(tenant, processId, connectionId),
          entity: "processSubscriber",
          connectionId,
          processId,
          [TABLE_TTL_ATTRIBUTE]: expiresAt,
        },
      }),
    );
  }

  /**
   * The process's subscription marker (dynamodb-connection-keys.ts) lives at least until
   * `expiresAt`: it is only ever moved later, so it outlives every subscriber item of the process.
   */
  private async markSubscribed(tenant: string, processId: string, expiresAt: number): Promise<void> {
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: processSubscribersMarkerKey(tenant, processId),
          UpdateExpression: "SET #ttl = :expiresAt, entity = :entity",
          ConditionExpression: "attribute_not_exists(#ttl) OR #ttl < :expiresAt",
          ExpressionAttributeNames: { "#ttl": TABLE_TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ":expiresAt": expiresAt, ":entity": "processSubscribers" },
        }),
      );
    } catch (error) {
      // A marker that lives longer already covers this subscription.
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }

  /** Counts live index items (TTL deletion lags, so expired ones are filtered out). */
  async countOpen(tenant: string, login: string): Promise<number> {
    let count = 0;
    let startKey: Item | undefined;
    do {
      const out = await this.documents.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: "pk = :pk",
          FilterExpression: "#ttl > :now",
          ExpressionAttributeNames: { "#ttl": TABLE_TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ":pk": identityConnectionsPartition(tenant, login), ":now": epochSeconds(this.clock()) },
          Select: "COUNT",
          ConsistentRead: true,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      count += out.Count ?? 0;
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return count;
  }

  async subscriptionsOf(tenant: string, connectionId: string): Promise<string[]> {
    const items = await this.queryAll(connectionPartition(tenant, connectionId), SUBSCRIPTION_SORT_PREFIX);
    return items.filter((item) => this.live(item) && typeof item.processId === "string").map((item) => item.processId as string);
  }

  async subscribers(tenant: string, processId: string): Promise<string[]> {
    const items = await this.queryAll(processSubscribersPartition(tenant, processId));
    return items.filter((item) => this.live(item) && typeof item.connectionId === "string").map((item) => item.connectionId as string);
  }

  private live(item: Item): boolean {
    const expiresAt = item[TABLE_TTL_ATTRIBUTE];
    return typeof expiresAt === "number" && expiresAt > epochSeconds(this.clock());
  }

  private async queryAll(pk: string, skPrefix?: string): Promise<Item[]> {
    const items: Item[] = [];
    let startKey: Item | undefined;
    do {
      const out = await this.documents.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: skPrefix === undefined ? "pk = :pk" : "pk = :pk AND begins_with(sk, :prefix)",
          ExpressionAttributeValues: { ":pk": pk, ...(skPrefix === undefined ? {} : { ":prefix": skPrefix }) },
          ConsistentRead: true,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      items.push(...(out.Items ?? []));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return items;
  }

  /** Deletes in batches of 25, retrying what DynamoDB left unprocessed (throttling) with backoff. */
  private async batchDelete(keys: TableKey[]): Promise<void> {
    for (let i = 0; i < keys.length; i += BATCH_SIZE) {
      let requests = keys.slice(i, i + BATCH_SIZE).map((Key) => ({ DeleteRequest: { Key } }));
      for (let attempt = 1; requests.length > 0; attempt++) {
        const out = await this.documents.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }));
        requests = (out.UnprocessedItems?.[this.tableName] ?? []).flatMap((r) =>
          r.DeleteRequest?.Key ? [{ DeleteRequest: { Key: r.DeleteRequest.Key as TableKey } }] : [],
        );
        if (requests.length === 0) break;
        if (attempt >= BATCH_ATTEMPTS) throw new ConnectionCleanupIncomplete(requests.length, attempt);
        await this.sleep(Math.min(1000, 50 * 2 ** attempt));
      }
    }
  }
}
