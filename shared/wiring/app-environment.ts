import type { CatalogueVersions } from "../catalogue/catalogue-versions.js";
import { DynamoDBCatalogueVersions } from "../catalogue/dynamodb-catalogue-versions.js";
import { dynamodbClient } from "../aws/aws-clients.js";
import type { awsClients } from "../aws/aws-clients.js";
import type { ClientInstrumentation } from "../aws/aws-clients.js";
import { ConfigurationError, ENV } from "./config.js";
import type { RuntimeConfig } from "./config.js";

/*
 * What a function reads from its environment, and the table-only runtime. Kept apart from
 * app-from-env.ts (which builds the whole service) so that a function needing only the table
 * imports none of the modules that build zod schemas or parsers at load time.
 */

/** Optional: parks poison lane messages in the DLQ at once (sqs-lane-dead-letter.ts). */
export const LANE_DLQ_URL_ENV = "SKILLS_LANE_DLQ_URL";
/** Optional: the lane's redrive maxReceiveCount, so the worker answers a request before giving it up. */
export const LANE_MAX_RECEIVE_COUNT_ENV = "SKILLS_LANE_MAX_RECEIVE_COUNT";
/** infra/function-environment.ts names the WebSocket callback URL so; config.ts reads SKILLS_WS_ENDPOINT. Either works. */
export const WS_CALLBACK_URL_ENV = "SKILLS_WS_CALLBACK_URL";

export interface AppEnvironment {
  tableName?: string | undefined;
  bucketName?: string | undefined;
  laneQueueUrl?: string | undefined;
  laneDeadLetterQueueUrl?: string | undefined;
  laneMaxReceiveCount?: number | undefined;
  webSocketEndpoint?: string | undefined;
  region: string;
  endpoints: RuntimeConfig["endpoints"];
}

const setting = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const value = env[name];
  return value === undefined || value.trim() === "" ? undefined : value;
};

function positiveInteger(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = setting(env, name);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new ConfigurationError(`${name} must be a positive integer, got '${value}'`);
  return parsed;
}

/** Same names and endpoint precedence as runtimeConfig (config.ts), without requiring every resource. */
export function appEnvironment(env: NodeJS.ProcessEnv = process.env): AppEnvironment {
  return {
    tableName: setting(env, ENV.table),
    bucketName: setting(env, ENV.bucket),
    laneQueueUrl: setting(env, ENV.laneQueueUrl),
    laneDeadLetterQueueUrl: setting(env, LANE_DLQ_URL_ENV),
    laneMaxReceiveCount: positiveInteger(env, LANE_MAX_RECEIVE_COUNT_ENV),
    webSocketEndpoint: setting(env, ENV.webSocketEndpoint) ?? setting(env, WS_CALLBACK_URL_ENV),
    region: setting(env, "AWS_REGION") ?? setting(env, "AWS_DEFAULT_REGION") ?? "us-east-1",
    endpoints: {
      s3: setting(env, "AWS_ENDPOINT_URL_S3") ?? setting(env, "AWS_ENDPOINT_URL"),
      dynamodb: setting(env, "AWS_ENDPOINT_URL_DYNAMODB") ?? setting(env, "AWS_ENDPOINT_URL"),
      sqs: setting(env, "AWS_ENDPOINT_URL_SQS") ?? setting(env, "AWS_ENDPOINT_URL"),
    },
  };
}

/**
 * A port whose resource this function was not given: every call rejects with ConfigurationError.
 * (A Proxy, so one definition covers every port; `then` stays undefined so it is never mistaken for a promise.)
 */
export function unconfigured<T extends object>(port: string, variable: string): T {
  const fail = (): Promise<never> => Promise.reject(new ConfigurationError(`${port} is not available to this function: ${variable} is not set`));
  return new Proxy({} as T, { get: (_target, property) => (property === "then" ? undefined : fail) });
}

/**
 * The table alone, for functions that touch nothing else (WebSocket $connect/$disconnect, S3
 * events): built from it, their bundles carry neither S3, SQS, the skill parsers nor zod schemas.
 */
export interface TableRuntime {
  environment: AppEnvironment;
  clients: Pick<ReturnType<typeof awsClients>, "dynamodb">;
  instrument?: ClientInstrumentation | undefined;
}

export function tableRuntimeFromEnv(env: NodeJS.ProcessEnv = process.env, options: RuntimeOptions = {}): TableRuntime {
  const environment = appEnvironment(env);
  return { environment, clients: { dynamodb: dynamodbClient(environment, options.instrument) }, instrument: options.instrument };
}

export interface RuntimeOptions {
  /** The function's tracing hook (functions/_shared/tracing.ts); none in tests and tools. */
  instrument?: ClientInstrumentation | undefined;
}

/** The warm catalogue's per-level version items live in the table (shared/catalogue). */
export function catalogueVersionsFromEnv(resources: TableRuntime): CatalogueVersions {
  const { tableName } = resources.environment;
  return tableName ? new DynamoDBCatalogueVersions(resources.clients.dynamodb, tableName) : unconfigured<CatalogueVersions>("The catalogue versions", ENV.table);
}
