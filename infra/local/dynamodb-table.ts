import { CreateTableCommand, DescribeTableCommand, UpdateTimeToLiveCommand, waitUntilTableExists } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { tableSchema } from "../../shared/aws/table-schema.js";

/**
 * Local stack and tests only (CDK owns the deployed table): creates the service table from
 * shared/aws/table-schema.ts unless it exists, waits until it is usable, and turns TTL on where the
 * endpoint supports it. dynalite has no UpdateTimeToLive: items still carry `expiresAt`, they
 * just never expire there.
 */
export const createTableIfMissing = async (client: DynamoDBClient, tableName: string): Promise<{ created: boolean }> => {
  if (await tableExists(client, tableName)) return { created: false };
  let created = true;
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [
          { AttributeName: tableSchema.partitionKey.name, AttributeType: tableSchema.partitionKey.type },
          { AttributeName: tableSchema.sortKey.name, AttributeType: tableSchema.sortKey.type },
        ],
        KeySchema: [
          { AttributeName: tableSchema.partitionKey.name, KeyType: "HASH" },
          { AttributeName: tableSchema.sortKey.name, KeyType: "RANGE" },
        ],
        BillingMode: tableSchema.billingMode,
      }),
    );
  } catch (error) {
    // Another test file or process created it between our check and our create.
    if (!(error instanceof Error && error.name === "ResourceInUseException")) throw error;
    created = false;
  }
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 2 }, { TableName: tableName });
  if (created) await enableTimeToLive(client, tableName);
  return { created };
};

const tableExists = async (client: DynamoDBClient, tableName: string): Promise<boolean> => {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return true;
  } catch (error) {
    if (error instanceof Error && error.name === "ResourceNotFoundException") return false;
    throw error;
  }
};

const enableTimeToLive = async (client: DynamoDBClient, tableName: string): Promise<void> => {
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: tableSchema.timeToLiveAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    if (error instanceof Error && /UnknownOperation/.test(error.name)) return;
    throw error;
  }
};
