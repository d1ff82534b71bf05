import { DynamoDBWaitSlots } from "../processes/dynamodb-wait-slots.js";
import { DEFAULT_MAX_CONCURRENT_EVALS_PER_IDENTITY } from "../processes/wait-slots.js";
import { DynamoDBSkillUsageStore } from "../usage/dynamodb-skill-usage-store.js";
import { createSkillsApp } from "../app/skills-app.js";
import type { SkillsApp } from "../app/skills-app.js";
import type { SkillsAppDeps } from "../app/skills-domain.js";
import { bundledDocuments } from "../documents/bundled-document-layer.js";
import type { DocumentLayer, DocumentStore } from "../documents/document-store.js";
import { HistoryKeepingDocumentStore } from "../documents/history-keeping-document-store.js";
import { S3DocumentStore } from "../documents/s3-document-store.js";
import { S3LevelSnapshotStore } from "../catalogue/s3-level-snapshot-store.js";
import { snapshotPatternHints, type LevelPatternHints } from "../catalogue/level-snapshot-patterns.js";
import { DynamoDBProcessVersionsReader } from "../catalogue/dynamodb-process-versions-reader.js";
import { DynamoDBFootInvocationStore } from "../foot/dynamodb-foot-invocation-store.js";
import type { FootInvocationStore } from "../foot/foot-invocation-store.js";
import type { Lane } from "../lanes/lane.js";
import { DynamoDBProcessStore } from "../processes/dynamodb-process-store.js";
import { DynamoDBRequestStore } from "../processes/dynamodb-request-store.js";
import type { ProcessStore } from "../processes/process-store.js";
import type { RequestStore } from "../processes/request-store.js";
import { hasTemplateSyntax } from "../templates/template-renderer.js";
import type { TemplateRenderer } from "../templates/template-renderer.js";
import { appEnvironment, catalogueVersionsFromEnv, unconfigured } from "./app-environment.js";
import type { RuntimeOptions, TableRuntime } from "./app-environment.js";
import { awsClients } from "../aws/aws-clients.js";
import type { AwsClients } from "../aws/aws-clients.js";
import type { SqsAdapters, SqsWiring } from "./sqs-from-env.js";
import { ENV, readConfig } from "../config/config.js";
import { ConfigurationError } from "../config/config-errors.js";
import type { Config, ConfigEnvironment } from "../config/config.js";

/**
 * Builds the service from the environment the stack (or the local stack) gives a function,
 * once per container (call it at module scope). A function only receives the variables of the
 * resources it was granted (infra/function-environment.ts), so every resource is optional here:
 * a missing one becomes an adapter that fails with ConfigurationError (a 500, logged) when used,
 * which is a missing grant in the stack, never a silent fallback.
 *
 * Only the AWS adapters are imported here. The template renderer (QuickJS) is passed in by the
 * functions that render, so the others do not bundle the sandbox. Nor SQS (AppRuntimeOptions.sqs)
 * nor the WebSocket management API (foot-router-from-env.ts, lane-worker-from-env.ts): a module
 * imported here is loaded at every init of every function, and the lane worker loads both on first use.
 */

export {
  appEnvironment,
  catalogueVersionsFromEnv,
  documentDigestsFromEnv,
  levelUsageFromEnv,
  tableRuntimeFromEnv,
  unconfigured,
} from "./app-environment.js";
export type { AppEnvironment, RuntimeOptions, TableRuntime } from "./app-environment.js";

/** The stores and the lane of one container. */
export interface RuntimeResources extends TableRuntime {
  clients: AwsClients;
  /** The lane's SQS adapters (AppRuntimeOptions.sqs); none in a function that never enqueues. */
  sqs: SqsAdapters | undefined;
  documents: DocumentStore;
  bundled: DocumentLayer;
  processes: ProcessStore;
  requests: RequestStore;
  lane: Lane;
  /** The per-identity and per-project caps (shared/config/config.ts), read from the same environment. */
  limits: RuntimeLimits;
}

const LIMIT_SETTINGS = ["maxConcurrentSpawnsPerUser", "maxDocumentsPerProject", "maxProjectBytes"] as const;
export type RuntimeLimits = Config<(typeof LIMIT_SETTINGS)[number]>;

export interface AppRuntimeOptions extends RuntimeOptions {
  /**
   * The lane's SQS adapters: `sqsFromEnv` (sqs-from-env.ts) in a function that enqueues on its
   * requests, loaded at init; `sqsOnFirstUse` in the lane worker, whose composed turns enqueue
   * nothing. A function that never enqueues passes none and loads no SQS: its lane is a LaneNotWired.
   */
  sqs?: SqsWiring | undefined;
}

export function runtimeFromEnv(env: ConfigEnvironment = process.env, options: AppRuntimeOptions = {}): RuntimeResources {
  const environment = appEnvironment(env);
  const { tableName, bucketName, laneQueueUrl } = environment;
  // Constructing a client opens no connection.
  const clients = awsClients(environment, options.instrument);
  const sqs = options.sqs?.(environment, options.instrument);
  return {
    instrument: options.instrument,
    environment,
    clients,
    sqs,
    documents: bucketName ? documentStoreFromEnv(env, clients, bucketName) : unconfigured("The document store", ENV.bucketName),
    bundled: bundledDocuments(),
    processes: tableName ? new DynamoDBProcessStore(clients.dynamodb, tableName) : unconfigured("The process store", ENV.tableName),
    requests: tableName ? new DynamoDBRequestStore(clients.dynamodb, tableName) : unconfigured("The request store", ENV.tableName),
    lane: laneQueueUrl ? (sqs?.lane(laneQueueUrl) ?? new LaneNotWired()) : unconfigured<Lane>("The lane", ENV.laneQueueUrl),
    limits: readConfig(env, LIMIT_SETTINGS),
  };
}

/**
 * The deployed bucket is versioned: its own versions are the history. A bucket without versioning
 * (the local stack's emulator) keeps a history only when given a history bucket; in local mode
 * without one there are no versions (501), never the current body under any version id.
 */
function documentStoreFromEnv(env: ConfigEnvironment, clients: RuntimeResources["clients"], bucket: string): DocumentStore {
  const { localMode, historyBucketName } = readConfig(env, ["localMode", "historyBucketName"]);
  if (historyBucketName === undefined || historyBucketName === "")
    return new S3DocumentStore({ client: clients.s3, bucket, versioned: !localMode });
  return new HistoryKeepingDocumentStore(
    new S3DocumentStore({ client: clients.s3, bucket, versioned: false }),
    new S3DocumentStore({ client: clients.s3, bucket: historyBucketName, versioned: false }),
  );
}

/** PATTERN counts for the per-level counters' one-time seed, from the level snapshots (issue 27); none without a table or bucket. */
export function levelPatternHintsFromEnv(resources: RuntimeResources): LevelPatternHints | undefined {
  const { tableName, bucketName } = resources.environment;
  return tableName && bucketName
    ? snapshotPatternHints(catalogueVersionsFromEnv(resources), new S3LevelSnapshotStore(resources.clients.s3, bucketName))
    : undefined;
}

/** For functions that never render: a template reaching it is a wiring bug, reported as such. */
export class TemplatesNotRendered implements TemplateRenderer {
  async render(template: string): Promise<string> {
    if (!hasTemplateSyntax(template)) return template;
    throw new ConfigurationError("This function does not render templates; pass a renderer to skillsAppFromEnv");
  }
}

/** For functions given no SQS adapters: a message reaching it is a wiring bug, reported as such. */
export class LaneNotWired implements Lane {
  async enqueue(): Promise<void> {
    throw new ConfigurationError("This function does not enqueue; pass `sqs` to runtimeFromEnv");
  }
}

export type AppFromEnvOptions = Partial<
  Pick<SkillsAppDeps, "renderer" | "events" | "logger" | "onApplied" | "activations" | "guard" | "toolSpecs" | "levelSnapshotWrites">
>;

export function skillsAppFromEnv(resources: RuntimeResources, options: AppFromEnvOptions = {}): SkillsApp {
  return createSkillsApp({
    documents: resources.documents,
    bundled: resources.bundled,
    processes: resources.processes,
    requests: resources.requests,
    lane: resources.lane,
    footInvocations: footInvocationsFromEnv(resources),
    ...(resources.environment.tableName
      ? {
          catalogueVersions: catalogueVersionsFromEnv(resources),
          ...(resources.environment.bucketName
            ? { levelSnapshots: new S3LevelSnapshotStore(resources.clients.s3, resources.environment.bucketName) }
            : {}),
          // A turn reads its process and the level versions with one BatchGetItem (same table).
          processVersions: new DynamoDBProcessVersionsReader(resources.clients.dynamodb, resources.environment.tableName),
          // Waits are counted across instances: on Lambda each one holds an instance of its own.
          waitSlots: new DynamoDBWaitSlots(resources.clients.dynamodb, resources.environment.tableName),
          usage: new DynamoDBSkillUsageStore(resources.clients.dynamodb, resources.environment.tableName),
          spawnSlots: new DynamoDBWaitSlots(
            resources.clients.dynamodb,
            resources.environment.tableName,
            resources.limits.maxConcurrentSpawnsPerUser,
            Date.now,
            "S",
          ),
          evalSlots: new DynamoDBWaitSlots(
            resources.clients.dynamodb,
            resources.environment.tableName,
            DEFAULT_MAX_CONCURRENT_EVALS_PER_IDENTITY,
            Date.now,
            "E",
          ),
        }
      : {}),
    ...options,
    renderer: options.renderer ?? new TemplatesNotRendered(),
  });
}

/** FOOT invocations live in the table: the tools function writes and polls them, `$default` answers them. */
export function footInvocationsFromEnv(resources: RuntimeResources): FootInvocationStore {
  const { tableName } = resources.environment;
  return tableName
    ? new DynamoDBFootInvocationStore(resources.clients.dynamodb, tableName)
    : unconfigured<FootInvocationStore>("The FOOT invocation store", ENV.tableName);
}
