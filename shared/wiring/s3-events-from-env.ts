import { DynamoDBLevelUsage } from "../catalogue/dynamodb-level-usage.js";
import { S3LevelSnapshotStore } from "../catalogue/s3-level-snapshot-store.js";
import type { Logger } from "../support/logger.js";
import type { S3EventFollowUpDeps } from "../catalogue/s3-event-follow-up.js";
import { s3Client } from "../aws/aws-clients.js";
import { S3DocumentStore } from "../documents/s3-document-store.js";
import { catalogueDocumentPreparer } from "../recipes/catalogue-document-preparer.js";
import { catalogueVersionsFromEnv, type TableRuntime } from "./app-environment.js";

/**
 * What the s3-events function needs besides the version bump (issue 27): the bucket (the changed
 * documents and the level snapshots), the per-level counters and the skill parser. Undefined
 * without a bucket or table: the function then only bumps, as before.
 */
export function s3EventFollowUpFromEnv(resources: TableRuntime, logger: Pick<Logger, "warn">): S3EventFollowUpDeps | undefined {
  const { bucketName, tableName } = resources.environment;
  if (!bucketName || !tableName) return undefined;
  const s3 = s3Client(resources.environment, resources.instrument);
  return {
    // Only current objects are read here: versions never matter.
    store: new S3DocumentStore({ client: s3, bucket: bucketName, versioned: false }),
    snapshots: new S3LevelSnapshotStore(s3, bucketName),
    versions: catalogueVersionsFromEnv(resources),
    usage: new DynamoDBLevelUsage(resources.clients.dynamodb, tableName),
    preparer: catalogueDocumentPreparer,
    logger,
  };
}
