import { QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { documentClientOf } from "../aws/dynamodb-client.js";
import type { DynamoDBClientLike } from "../aws/dynamodb-client.js";
import type { TableKey } from "../aws/dynamodb-keys.js";
import { TABLE_TTL_ATTRIBUTE } from "../aws/table-schema.js";
import type { SkillScope } from "../documents/cascade-scope.js";
import {
  MAX_USAGE_ROWS,
  USAGE_COUNTERS,
  capUsageRows,
  emptyRow,
  firstUsageDay,
  refusalCodeOf,
  rowOwner,
  sortedCodes,
  usageExpiry,
  utcDay,
} from "./skill-usage.js";
import type { SkillUsageStore, UsageAnswer, UsageEvent, UsageQuery, UsageRow } from "./skill-usage.js";

/** URI-encoded parts, as every key of the table: `#` cannot forge another key. */
const part = (value: string): string => encodeURIComponent(value);

/** One partition per project: a usage query is one Query (paged), days in the sort key for the range. */
export const usagePartition = (tenant: string, projectId: string): string => `T#${part(tenant)}#USAGE#${part(projectId)}`;

const NO_SOURCE = "-";

/** A refusal's code is its own top-level attribute (`refused:SKILL_NOT_ALLOWED`): ADD needs no map to exist first. */
const REFUSED_CODE_PREFIX = "refused:";

/** A private row's item is its owner's: two members' `_user_` skills of one name never share a counter. */
export const usageItemKey = (event: Pick<UsageEvent, "tenant" | "projectId" | "name" | "source" | "owner" | "at">): TableKey => {
  const owner = rowOwner(event);
  return {
    pk: usagePartition(event.tenant, event.projectId),
    sk: `${utcDay(event.at)}#${part(event.name)}#${event.source ?? NO_SOURCE}${owner !== undefined ? `#${part(owner)}` : ""}`,
  };
};

interface UsageItem {
  sk: string;
  name: string;
  source?: string;
  [counter: string]: unknown;
}

/**
 * Usage counters on the service table: one UpdateItem per activation (`ADD <counter> :1`, atomic,
 * no read, creates the item), each day's item expiring after USAGE_TTL_DAYS through the table's TTL.
 */
export class DynamoDBSkillUsageStore implements SkillUsageStore {
  private readonly documents: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClientLike,
    private readonly tableName: string,
    private readonly maxRows: number = MAX_USAGE_ROWS,
  ) {
    this.documents = documentClientOf(client);
  }

  async count(event: UsageEvent): Promise<void> {
    // A refusal adds to `refused` and to its code's counter in the same write: still one request.
    const code = event.counter === "refused" ? { "#code": `${REFUSED_CODE_PREFIX}${refusalCodeOf(event.code)}` } : undefined;
    const owner = rowOwner(event);
    await this.documents.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: usageItemKey(event),
        UpdateExpression: `ADD #counter :one${code ? ", #code :one" : ""} SET #name = :name, #source = :source, #ttl = :ttl, #entity = :entity${owner !== undefined ? ", #owner = :owner" : ""}`,
        ExpressionAttributeNames: {
          "#counter": event.counter,
          ...code,
          "#name": "name",
          "#source": "source",
          "#ttl": TABLE_TTL_ATTRIBUTE,
          "#entity": "entity",
          ...(owner !== undefined ? { "#owner": "owner" } : {}),
        },
        ExpressionAttributeValues: {
          ":one": 1,
          ":name": event.name,
          ":source": event.source ?? NO_SOURCE,
          ":ttl": usageExpiry(event.at),
          ":entity": "skillUsage",
          ...(owner !== undefined ? { ":owner": owner } : {}),
        },
      }),
    );
  }

  async read(query: UsageQuery): Promise<UsageAnswer> {
    const rows: UsageRow[] = [];
    // Private rows (USER skills, refusals of unknown level) only for their owner; items written before owners were kept have none and stay hidden.
    const filters = ["(NOT (#source IN (:user, :none)) OR #owner = :viewer)", ...(query.name !== undefined ? ["#name = :name"] : [])];
    let startKey: Record<string, unknown> | undefined;
    // Newest days first (the sort key starts with the day), so a cut leaves out the oldest days, never today.
    do {
      const page = await this.documents.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: "pk = :pk AND sk >= :from",
          FilterExpression: filters.join(" AND "),
          ExpressionAttributeNames: { "#source": "source", "#owner": "owner", ...(query.name !== undefined ? { "#name": "name" } : {}) },
          ExpressionAttributeValues: {
            ":pk": usagePartition(query.tenant, query.projectId),
            ":from": firstUsageDay(query.now, query.days),
            ":user": "USER",
            ":none": NO_SOURCE,
            ":viewer": query.viewer,
            ...(query.name !== undefined ? { ":name": query.name } : {}),
          },
          ScanIndexForward: false,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of (page.Items ?? []) as UsageItem[]) rows.push(rowOf(item));
      startKey = page.LastEvaluatedKey;
    } while (startKey && rows.length <= this.maxRows);
    return capUsageRows(rows, this.maxRows);
  }
}

function rowOf(item: UsageItem): UsageRow {
  const source = item.source === undefined || item.source === NO_SOURCE ? null : (item.source as SkillScope);
  const row = emptyRow(item.name, source, item.sk.slice(0, 10));
  for (const counter of USAGE_COUNTERS) row[counter] = typeof item[counter] === "number" ? item[counter] : 0;
  const codes: Record<string, number> = {};
  for (const [attribute, value] of Object.entries(item)) {
    if (attribute.startsWith(REFUSED_CODE_PREFIX) && typeof value === "number") codes[attribute.slice(REFUSED_CODE_PREFIX.length)] = value;
  }
  row.refusedCodes = sortedCodes(codes);
  return row;
}
