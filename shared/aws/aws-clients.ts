import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { S3Client } from "@aws-sdk/client-s3";

/** A hook applied to every SDK client a function builds (X-Ray tracing on Lambda); identity when absent. */
export type ClientInstrumentation = <C extends object>(client: C) => C;

export const asIs: ClientInstrumentation = (client) => client;

/** Where the clients connect: the region and, off AWS, endpoint overrides per service. */
export interface AwsClientsConfig {
  region: string;
  endpoints: { s3?: string | undefined; dynamodb?: string | undefined; sqs?: string | undefined };
}

/** The clients a function that serves the whole service builds at init. */
export interface AwsClients {
  s3: S3Client;
  dynamodb: DynamoDBClient;
}

/**
 * S3 and DynamoDB clients for one configuration. SQS is not among them (aws-sqs-client.ts): the
 * lane worker loads it on first use, and a module imported here is loaded at every init.
 */
export function awsClients(config: AwsClientsConfig, instrument: ClientInstrumentation = asIs): AwsClients {
  return { s3: s3Client(config, instrument), dynamodb: dynamodbClient(config, instrument) };
}

/**
 * The S3 client alone (path-style addressing with an endpoint override). Checksums only where an
 * operation requires one (the SDK's behaviour before 2025): a CRC32 of every body sent and
 * received cost ~15 % of a small PutObject's CPU (docs/decisions.md), for an integrity check TLS
 * already gives; documents carry their own SHA-256 digest where callers need one.
 */
export function s3Client(config: AwsClientsConfig, instrument: ClientInstrumentation = asIs): S3Client {
  const endpoint = config.endpoints.s3;
  return instrument(
    new S3Client({
      region: config.region,
      ...(endpoint ? { endpoint } : {}),
      forcePathStyle: endpoint !== undefined,
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    }),
  );
}

/**
 * The DynamoDB client alone: a function that only needs the table bundles neither S3 nor SQS.
 * Regional endpoints: Lambda's credentials carry no account id, so account-based endpoint rules
 * would only be evaluated per request (~8 % of a GetItem's CPU) to fall back to the regional one.
 */
export function dynamodbClient(config: AwsClientsConfig, instrument: ClientInstrumentation = asIs): DynamoDBClient {
  const endpoint = config.endpoints.dynamodb;
  return instrument(new DynamoDBClient({ region: config.region, ...(endpoint ? { endpoint } : {}), accountIdEndpointMode: "disabled" }));
}
