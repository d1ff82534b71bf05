import { RemovalPolicy } from "aws-cdk-lib";
import type { Grant } from "aws-cdk-lib/aws-iam";
import { AttributeType, BillingMode, Table } from "aws-cdk-lib/aws-dynamodb";
import { Construct } from "constructs";
import { FUNCTION_ENVIRONMENT } from "../function-environment.js";
import { tableSchema } from "../../shared/aws/table-schema.js";
import type { ResourceUser } from "./resource-user.js";

/** The item-level actions handlers use; table-level ones (Scan, DescribeTable, …) are never granted. */
type TableItemAction = "GetItem" | "BatchGetItem" | "BatchWriteItem" | "Query" | "PutItem" | "UpdateItem" | "DeleteItem";

const attributeType = { S: AttributeType.STRING } as const;

/**
 * The single service table (process items, name claims, request results, lane markers,
 * WebSocket connections). Key schema and TTL attribute come from table-schema.ts, which the
 * local stack uses too. Retained when the stack goes: it holds every process's state.
 */
export class ProcessTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new Table(this, "Table", {
      partitionKey: { name: tableSchema.partitionKey.name, type: attributeType[tableSchema.partitionKey.type] },
      sortKey: { name: tableSchema.sortKey.name, type: attributeType[tableSchema.sortKey.type] },
      billingMode: BillingMode[tableSchema.billingMode],
      timeToLiveAttribute: tableSchema.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /** Exactly these item actions on this table (and nothing on other tables). */
  grantItemActions(user: ResourceUser, ...actions: TableItemAction[]): Grant {
    user.addEnvironment(FUNCTION_ENVIRONMENT.tableName, this.table.tableName);
    return this.table.grant(user, ...actions.map((action) => `dynamodb:${action}`));
  }

  /** GetItem and Query: readers of process state. */
  grantReadItems(user: ResourceUser): Grant {
    // BatchGetItem: the warm catalogue checks every cascade level's version with one read.
    return this.grantItemActions(user, "GetItem", "Query", "BatchGetItem");
  }

  /** Reads plus conditional Put/Update and Delete: the lane worker and the WebSocket router. */
  grantReadWriteItems(user: ResourceUser): Grant {
    return this.grantItemActions(user, "GetItem", "Query", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem");
  }
}
