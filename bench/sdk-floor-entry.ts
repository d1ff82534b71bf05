import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutObjectCommand,
} from "@aws-sdk/client-s3";
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { awsClients } from "../shared/aws/aws-clients.js";
import { documentClientOf } from "../shared/aws/dynamodb-client.js";

/**
 * The floor of a composition-path function's cold init (issue 31): the S3 and DynamoDB clients
 * every one of them builds at init, built by the shipped code (shared/aws), and every command the
 * adapters import, with nothing of the service around them. bench/bundle-bench.ts bundles it as a
 * function is bundled and times its init beside the authorizer's: what is left of the 3.5× budget
 * for the service itself. test/unit/sdk-floor-entry.test.ts keeps the command list whole.
 */
const clients = awsClients({ region: "us-east-1", endpoints: {} });
const table = documentClientOf(clients.dynamodb);

export const handler = (): unknown[] => [
  table,
  clients.s3,
  ConditionalCheckFailedException,
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutObjectCommand,
];
