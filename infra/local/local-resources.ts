import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import type { BucketLocationConstraint } from "@aws-sdk/client-s3";
import { SQSClient } from "@aws-sdk/client-sqs";
import { createLaneQueues } from "./sqs-lane-queues.js";
import { createTableIfMissing } from "./dynamodb-table.js";
import type { AwsEndpoints } from "./local-emulators.js";

export interface LocalResourceNames {
  tableName: string;
  bucketName: string;
  /** The documents' version history (fauxqs keeps no versions; HistoryKeepingDocumentStore). None: no versions (501). */
  historyBucketName?: string | undefined;
  /** Without `.fifo`: the lane is `<base>.fifo`, its DLQ `<base>-dlq.fifo`. */
  laneQueueBaseName: string;
}

export const DEFAULT_RESOURCE_NAMES = {
  tableName: "skills-local",
  bucketName: "skills-local-documents",
  historyBucketName: "skills-local-document-history",
  laneQueueBaseName: "skills-local-lane",
} satisfies LocalResourceNames;

export interface LocalResources {
  tableName: string;
  bucketName: string;
  historyBucketName?: string | undefined;
  laneQueueUrl: string;
  laneQueueArn: string;
  deadLetterQueueUrl: string;
  /** The lane's redrive limit, which the lane worker is told. */
  laneMaxReceiveCount: number;
}

export interface LocalClients {
  dynamodb: DynamoDBClient;
  s3: S3Client;
  sqs: SQSClient;
  destroy(): void;
}

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

/** The stack's own clients (resource creation, the lane poller, snapshots), independent of process.env. */
export function localClients(endpoints: AwsEndpoints, region: string, credentials: AwsCredentials): LocalClients {
  const base = { region, credentials };
  const dynamodb = new DynamoDBClient({ ...base, endpoint: endpoints.dynamodb });
  const s3 = new S3Client({ ...base, endpoint: endpoints.s3, forcePathStyle: true });
  const sqs = new SQSClient({ ...base, endpoint: endpoints.sqs });
  return {
    dynamodb,
    s3,
    sqs,
    destroy: () => {
      dynamodb.destroy();
      s3.destroy();
      sqs.destroy();
    },
  };
}

async function createBucketIfMissing(s3: S3Client, bucketName: string, region: string): Promise<void> {
  try {
    await s3.send(
      new CreateBucketCommand({
        Bucket: bucketName,
        // us-east-1 is the one region that refuses an explicit location constraint.
        ...(region === "us-east-1" ? {} : { CreateBucketConfiguration: { LocationConstraint: region as BucketLocationConstraint } }),
      }),
    );
  } catch (error) {
    if (error instanceof Error && (error.name === "BucketAlreadyOwnedByYou" || error.name === "BucketAlreadyExists")) return;
    throw error;
  }
}

/**
 * The bucket, the table and the lane queues, created unless they exist (idempotent, so a restart
 * with `--data` or against LocalStack reuses them). Nothing is uploaded.
 */
export async function createLocalResources(
  clients: LocalClients,
  names: LocalResourceNames,
  settings: { region: string; laneVisibilityTimeoutSeconds: number; laneMaxReceiveCount: number },
): Promise<LocalResources> {
  await createBucketIfMissing(clients.s3, names.bucketName, settings.region);
  if (names.historyBucketName !== undefined) await createBucketIfMissing(clients.s3, names.historyBucketName, settings.region);
  await createTableIfMissing(clients.dynamodb, names.tableName);
  const queues = await createLaneQueues(clients.sqs, names.laneQueueBaseName, {
    visibilityTimeout: settings.laneVisibilityTimeoutSeconds,
    maxReceiveCount: settings.laneMaxReceiveCount,
  });
  return {
    tableName: names.tableName,
    bucketName: names.bucketName,
    historyBucketName: names.historyBucketName,
    laneQueueUrl: queues.queueUrl,
    laneQueueArn: queues.queueArn,
    deadLetterQueueUrl: queues.deadLetterQueueUrl,
    laneMaxReceiveCount: settings.laneMaxReceiveCount,
  };
}
