import { DynamoDBLevelUsage } from "../catalogue/dynamodb-level-usage.js";
import type { DocumentDigests } from "../documents/document-digests.js";
import { DynamoDBDocumentDigests } from "../catalogue/dynamodb-document-digests.js";
import type { LevelUsage } from "../catalogue/level-usage.js";
import type { CatalogueVersions } from "../catalogue/catalogue-versions.js";
import { DynamoDBCatalogueVersions } from "../catalogue/dynamodb-catalogue-versions.js";
import { dynamodbClient } from "../aws/aws-clients.js";
import type { awsClients } from "../aws/aws-clients.js";
import type { ClientInstrumentation } from "../aws/aws-clients.js";
import { ENV, resourceConfig } from "../config/config.js";
import { ConfigurationError } from "../config/config-errors.js";
import type { ConfigEnvironment, EnvironmentVariableName, ResourceConfig } from "../config/config.js";

/*
 * What a function reads from its environment, and the table-only runtime. Kept apart from
 * app-from-env.ts (which builds the whole service) so that a function needing only the table
 * imports none of the modules that build the request and document schemas (zod) or parsers at
 * load time; the configuration itself takes zod/mini, a few KB (shared/config/config.ts).
 */

/** A function's resources (each optional: a missing one is a missing grant) and where to reach them. */
export type AppEnvironment = ResourceConfig;

/** The resource slice of the configuration (shared/config/config.ts), parsed once per container. */
export function appEnvironment(env: ConfigEnvironment = process.env): AppEnvironment {
  return resourceConfig(env);
}

/**
 * A port whose resource this function was not given: every call rejects with ConfigurationError.
 * (A Proxy, so one definition covers every port; `then` stays undefined so it is never mistaken for a promise.)
 */
export function unconfigured<T extends object>(port: string, variable: EnvironmentVariableName): T {
  const fail = (): Promise<never> =>
    Promise.reject(new ConfigurationError(`${port} is not available to this function: ${variable} is not set`));
  return new Proxy({} as T, { get: (_target, property) => (property === "then" ? undefined : fail) });
}

/**
 * The table alone, for functions that touch nothing else (WebSocket $connect/$disconnect, S3
 * events): built from it, their bundles carry neither S3, SQS, the skill parsers nor the request schemas.
 */
export interface TableRuntime {
  environment: AppEnvironment;
  clients: Pick<ReturnType<typeof awsClients>, "dynamodb">;
  instrument?: ClientInstrumentation | undefined;
}

export function tableRuntimeFromEnv(env: ConfigEnvironment = process.env, options: RuntimeOptions = {}): TableRuntime {
  const environment = appEnvironment(env);
  return { environment, clients: { dynamodb: dynamodbClient(environment, options.instrument) }, instrument: options.instrument };
}

export interface RuntimeOptions {
  /** The function's tracing hook (functions/_shared/tracing.ts); none in tests and tools. */
  instrument?: ClientInstrumentation | undefined;
}

/** The warm catalogue's per-level version items live in the table (shared/catalogue). */
/** Per-level counters for the documents API (issue 27); without a table the level is listed on each write. */
export function levelUsageFromEnv(resources: TableRuntime): LevelUsage | undefined {
  const { tableName } = resources.environment;
  return tableName ? new DynamoDBLevelUsage(resources.clients.dynamodb, tableName) : undefined;
}

/** Stored document digests (issue 32), on the same entries; without a table digests are taken from bytes and kept in memory. */
export function documentDigestsFromEnv(resources: TableRuntime): DocumentDigests | undefined {
  const { tableName } = resources.environment;
  return tableName ? new DynamoDBDocumentDigests(resources.clients.dynamodb, tableName) : undefined;
}

export function catalogueVersionsFromEnv(resources: TableRuntime): CatalogueVersions {
  const { tableName } = resources.environment;
  return tableName
    ? new DynamoDBCatalogueVersions(resources.clients.dynamodb, tableName)
    : unconfigured<CatalogueVersions>("The catalogue versions", ENV.tableName);
}
