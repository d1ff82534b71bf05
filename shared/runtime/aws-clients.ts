import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { S3Client } from "@aws-sdk/client-s3";
import { SQSClient } from "@aws-sdk/client-sqs";
import type { RuntimeConfig } from "./config.js";

/**
 * SDK clients for one configuration. With an endpoint override (LocalStack, the local emulators)
 * S3 needs path-style addressing; on AWS the defaults are right.
 */
export function awsClients(config: RuntimeConfig): { s3: S3Client; dynamodb: DynamoDBClient; sqs: SQSClient } {
  const { region, endpoints } = config;
  const at = (endpoint: string | undefined) => ({ region, ...(endpoint ? { endpoint } : {}) });
  return {
    s3: new S3Client({ ...at(endpoints.s3), forcePathStyle: endpoints.s3 !== undefined }),
    dynamodb: new DynamoDBClient(at(endpoints.dynamodb)),
    sqs: new SQSClient(at(endpoints.sqs)),
  };
}
