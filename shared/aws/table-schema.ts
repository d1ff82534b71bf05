/**
 * The one DynamoDB table of the service (process items, session name claims, request results,
 * lane markers, connections). CDK and the local stack both build the table from this module,
 * so the deployed table and the emulated one cannot drift apart. No AWS or CDK import here:
 * Lambda bundles pull this file in through the adapters.
 */
export const TABLE_PARTITION_KEY = "pk";
export const TABLE_SORT_KEY = "sk";
/** Epoch seconds; DynamoDB deletes the item some time after this moment (not exactly at it). */
export const TABLE_TTL_ATTRIBUTE = "expiresAt";

/** `"S"` equals CDK's `AttributeType.STRING` and the SDK's `ScalarAttributeType.S`. */
export const tableSchema = {
  partitionKey: { name: TABLE_PARTITION_KEY, type: "S" },
  sortKey: { name: TABLE_SORT_KEY, type: "S" },
  timeToLiveAttribute: TABLE_TTL_ATTRIBUTE,
  billingMode: "PAY_PER_REQUEST",
} as const;
