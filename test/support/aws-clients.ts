import { randomUUID } from "node:crypto";
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectsCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SQSClient } from "@aws-sdk/client-sqs";
import { inject } from "vitest";

/** Clients for the endpoints the emulator global setup provides (integration tests only). */

// Set before any client is built: the SDK emits its Node-version notice at construction.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

function baseConfig(endpoint: string) {
  const external = inject("awsMode") === "external";
  const accessKeyId = (external && process.env.AWS_ACCESS_KEY_ID) || "test";
  const secretAccessKey = (external && process.env.AWS_SECRET_ACCESS_KEY) || "test";
  return {
    endpoint,
    region: (external && process.env.AWS_REGION) || "us-east-1",
    credentials: { accessKeyId, secretAccessKey },
  };
}

export const testS3Client = (): S3Client => new S3Client({ ...baseConfig(inject("awsEndpoint")), forcePathStyle: true });

export const testSqsClient = (): SQSClient => new SQSClient(baseConfig(inject("awsEndpoint")));

export const testDynamoDbClient = (): DynamoDBClient => new DynamoDBClient(baseConfig(inject("dynamodbEndpoint")));

/** A fresh bucket with a unique, valid name (lowercase, ≤ 63 chars) so test files never share state. */
export async function createTestBucket(s3: S3Client, label: string): Promise<string> {
  const slug =
    label
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 30) || "test";
  const bucket = `skills-${slug}-${randomUUID().slice(0, 8)}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  return bucket;
}

/** Empties and removes a test bucket (matters against a long-lived LocalStack). */
export async function deleteTestBucket(s3: S3Client, bucket: string): Promise<void> {
  for (;;) {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
    if (keys.length === 0) break;
    await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }));
  }
  await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
}
