import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

/** Adapters take either client; a plain one is wrapped (no new connection, just marshalling). */
export type DynamoDBClientLike = DynamoDBClient | DynamoDBDocumentClient;

export const documentClientOf = (client: DynamoDBClientLike): DynamoDBDocumentClient =>
  client instanceof DynamoDBDocumentClient
    ? client
    : DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

/** By name, not class: emulators and LocalStack answer with the name but not always our class instance. */
export const isConditionalCheckFailed = (error: unknown): boolean =>
  error instanceof Error && error.name === "ConditionalCheckFailedException";

/** JSON round trip: drops `undefined` (the SDK rejects it unless configured) and detaches caller objects. */
export const plainItem = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
