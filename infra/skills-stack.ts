import { CfnOutput, Duration, Stack, type StackProps } from "aws-cdk-lib";
import type { Construct } from "constructs";
import type { FunctionName } from "./api-routes.js";
import { ConsoleSite } from "./constructs/console-site.js";
import { DocumentEvents } from "./constructs/document-events.js";
import { DocumentsBucket } from "./constructs/documents-bucket.js";
import { SkillsHttpApi } from "./constructs/http-api.js";
import { JwtKeys } from "./constructs/jwt-keys.js";
import { LaneQueue } from "./constructs/lane-queue.js";
import { LlmEndpoint } from "./constructs/llm-endpoint.js";
import { ProcessTable } from "./constructs/process-table.js";
import { ServiceAlarms } from "./constructs/service-alarms.js";
import { SkillsFunction, type SkillsFunctionProps } from "./constructs/skills-function.js";
import { SkillsWebSocketApi } from "./constructs/websocket-api.js";

export interface SkillsStackProps extends StackProps {
  /** WebSocket stage (the HTTP API uses `$default`, so its paths are exactly API.md's). @default "live" */
  stageName?: string;
  /** Existing HS256 secret; generated when neither this nor jwksUrl is given. */
  jwtSecretArn?: string;
  jwksUrl?: string;
  jwtIssuer?: string;
  jwtAudience?: string;
  /** OpenAI-compatible endpoint for LLM guards (lane worker only); without it such guards fail open. */
  llmUrl?: string;
  llmModel?: string;
  llmApiKeySecretArn?: string;
  llmTimeoutMs?: number;
  /** SNS topic for alarm notifications. */
  alarmTopicArn?: string;
  /** The built web console (console/dist) to deploy behind CloudFront; without it the site is empty. */
  consoleAssetsDir?: string;
  /** Concurrent lane-worker invocations. @default 10 */
  laneWorkerMaxConcurrency?: number;
}

/** The lane worker's timeout; the lane's visibility timeout is six times this. */
export const LANE_WORKER_TIMEOUT = Duration.seconds(60);

type FunctionSettings = Omit<SkillsFunctionProps, "name">;

/**
 * Size and shape of each Lambda. Only functions that render templates or run skill scripts
 * ship the QuickJS sandbox; only functions that resolve skills ship shared/bundled.
 * http-steer only enqueues and waits for the request item, so it gets neither.
 */
export const FUNCTION_SETTINGS: Record<FunctionName, FunctionSettings> = {
  "http-skills": {
    description: "Skill listings: effective, by name, problems, active; /health",
    memorySize: 512,
    timeout: Duration.seconds(10),
    loadsSkills: true,
  },
  "http-processes": {
    description: "Process spawn and read, request status, composition preview",
    memorySize: 1024,
    timeout: Duration.seconds(15),
    loadsSkills: true,
    runsSandbox: true,
  },
  // Prefer: wait=N allows up to 20 s; API Gateway gives up at 30 s.
  "http-steer": {
    description: "Skill activate/clear and turn compose/complete through the process lane",
    memorySize: 512,
    timeout: Duration.seconds(29),
  },
  "http-documents": {
    description: "Document editor API (S3), validating skills and recipes on PUT",
    memorySize: 512,
    timeout: Duration.seconds(10),
  },
  "http-tools": {
    description: "Tool invocation: skill scripts, reference docs, manuals",
    memorySize: 1024,
    timeout: Duration.seconds(15),
    loadsSkills: true,
    runsSandbox: true,
  },
  "http-mcp": {
    description: "MCP server (Streamable HTTP, stateless): prompts, resources, completion, a process's tools",
    memorySize: 1024,
    timeout: Duration.seconds(15),
    loadsSkills: true,
    runsSandbox: true,
  },
  "lane-worker": {
    description: "Applies lane messages to processes (SQS FIFO)",
    memorySize: 1024,
    timeout: LANE_WORKER_TIMEOUT,
    loadsSkills: true,
    runsSandbox: true,
  },
  "ws-connect": { description: "WebSocket $connect: stores the connection", memorySize: 256, timeout: Duration.seconds(5) },
  "ws-disconnect": {
    description: "WebSocket $disconnect: removes the connection and its subscriptions",
    memorySize: 256,
    timeout: Duration.seconds(10),
  },
  "ws-default": {
    description: "WebSocket frames: process-skill, process-subscribe, skill-list",
    memorySize: 512,
    timeout: Duration.seconds(29),
    loadsSkills: true,
  },
  authorizer: {
    description: "JWT authorizer for the HTTP API and WebSocket $connect",
    memorySize: 256,
    timeout: Duration.seconds(5),
    secretsExtension: true,
  },
  "s3-events": {
    description: "Catalogue version bumps for document writes that bypass the API (S3 events via EventBridge)",
    memorySize: 256,
    timeout: Duration.seconds(10),
  },
};

const constructId = (name: FunctionName): string =>
  name
    .split("-")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");

/**
 * The Skills service on AWS (DESIGN.md): documents bucket, process table, lane queue, one
 * Lambda per handler, HTTP and WebSocket APIs, the rule feeding bucket events to the catalogue,
 * alarms. Every function's access is listed
 * below in one place, through the resource constructs' grant helpers.
 */
export class SkillsStack extends Stack {
  readonly documents: DocumentsBucket;
  readonly table: ProcessTable;
  readonly lane: LaneQueue;
  readonly jwtKeys: JwtKeys;
  readonly llm: LlmEndpoint | undefined;
  readonly functions: Record<FunctionName, SkillsFunction>;
  readonly httpApi: SkillsHttpApi;
  readonly webSocketApi: SkillsWebSocketApi;
  readonly documentEvents: DocumentEvents;
  readonly alarms: ServiceAlarms;
  readonly consoleSite: ConsoleSite;

  constructor(scope: Construct, id: string, props: SkillsStackProps = {}) {
    super(scope, id, props);
    this.documents = new DocumentsBucket(this, "Documents");
    this.table = new ProcessTable(this, "Processes");
    this.lane = new LaneQueue(this, "Lane", { workerTimeout: LANE_WORKER_TIMEOUT });
    this.jwtKeys = new JwtKeys(this, "JwtKeys", {
      secretArn: props.jwtSecretArn,
      jwksUrl: props.jwksUrl,
      issuer: props.jwtIssuer,
      audience: props.jwtAudience,
    });

    this.llm = props.llmUrl
      ? new LlmEndpoint(this, "Llm", {
          url: props.llmUrl,
          model: props.llmModel ?? "",
          apiKeySecretArn: props.llmApiKeySecretArn,
          timeoutMs: props.llmTimeoutMs,
        })
      : undefined;

    const settingsFor = (name: FunctionName): FunctionSettings =>
      // The LLM key is read like the JWT secret: through the secrets extension.
      name === "lane-worker" && this.llm?.apiKeySecret ? { ...FUNCTION_SETTINGS[name], secretsExtension: true } : FUNCTION_SETTINGS[name];
    const functions = Object.fromEntries(
      (Object.keys(FUNCTION_SETTINGS) as FunctionName[]).map((name) => [
        name,
        new SkillsFunction(this, constructId(name), { name, ...settingsFor(name) }),
      ]),
    ) as Record<FunctionName, SkillsFunction>;
    this.functions = functions;
    const { documents, table, lane } = this;

    documents.grantRead(functions["http-skills"]);
    table.grantReadItems(functions["http-skills"]);
    // The per-identity evals slot (DynamoDBWaitSlots, partition E): a conditional put, a delete.
    table.grantItemActions(functions["http-skills"], "PutItem", "DeleteItem");
    // Issue 32: the skill detail's digests; one taken from the bytes is stored on the document's level entry (Query reads them).
    table.grantItemActions(functions["http-skills"], "UpdateItem");

    // Spawn checks a recipe's skillVersions pins; the composition preview composes a pinned process.
    documents.grantReadVersion(functions["http-processes"]);
    table.grantItemActions(functions["http-processes"], "GetItem", "Query", "BatchGetItem", "PutItem", "UpdateItem");

    lane.grantSendMessages(functions["http-steer"]);
    table.grantItemActions(functions["http-steer"], "GetItem", "PutItem", "UpdateItem");

    documents.grantReadWrite(functions["http-documents"]);
    // The versions API (issue 17): list, read and restore versions; recipe saves check their pins.
    documents.grantReadHistory(functions["http-documents"]);
    // Catalogue version bumps, so warm Lambdas notice a changed level; the level's usage counters,
    // document entries and name claims (issue 27: a write reads no listing).
    table.grantItemActions(functions["http-documents"], "GetItem", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem");
    // The counters' one-time seed of a level takes PATTERN counts from its snapshot (issue 27).
    documents.grantLevelSnapshotRead(functions["http-documents"]);

    // Skill scripts read and write the project's workspace (vance.workspace.*) and wait for FOOT
    // answers stored in the table by the WebSocket router.
    documents.grantReadWrite(functions["http-tools"]);
    // Tools resolve skills in the process's scope, so a pinned skill's version.
    documents.grantReadVersion(functions["http-tools"]);
    table.grantReadWriteItems(functions["http-tools"]);
    // skill_activate enqueues an ACTIVATE on the process lane (and waits for it in the table).
    lane.grantSendMessages(functions["http-tools"]);

    // MCP tools/call is the tools route by another protocol: the same grants as http-tools.
    documents.grantReadWrite(functions["http-mcp"]);
    documents.grantReadVersion(functions["http-mcp"]);
    table.grantReadWriteItems(functions["http-mcp"]);
    lane.grantSendMessages(functions["http-mcp"]);

    // Every turn and activation of a pinned process reads its pinned SKILL.md version.
    documents.grantReadVersion(functions["lane-worker"]);
    table.grantReadWriteItems(functions["lane-worker"]);
    // Cold instances read level snapshots and write a missing or stale one (issue 27).
    for (const name of ["lane-worker", "http-processes", "http-tools", "http-mcp"] as const) documents.grantLevelSnapshots(functions[name]);
    // Skill listings and WebSocket frames read snapshots but write none (their handlers say so).
    for (const name of ["http-skills", "ws-default"] as const) documents.grantLevelSnapshotRead(functions[name]);
    // Spawn enqueues `process.spawnActivate` on the child's lane.
    lane.grantSendMessages(functions["lane-worker"]);
    lane.grantParkMessages(functions["lane-worker"]);
    // Completion guards may ask an LLM.
    this.llm?.grantUse(functions["lane-worker"]);
    lane.connectWorker(functions["lane-worker"], { maxConcurrency: props.laneWorkerMaxConcurrency ?? 10 });

    table.grantItemActions(functions["ws-connect"], "PutItem");
    // Disconnect removes the connection and its subscriptions with batch deletes.
    table.grantItemActions(functions["ws-disconnect"], "Query", "DeleteItem", "BatchWriteItem");

    // Frames only enqueue or list a project's current skills: no pinned version is read here.
    documents.grantRead(functions["ws-default"]);
    table.grantReadWriteItems(functions["ws-default"]);
    lane.grantSendMessages(functions["ws-default"]);

    this.jwtKeys.grantVerify(functions.authorizer);

    // Writes that bypass the documents API bump their level's catalogue version (one UpdateItem),
    // then set the document's counter entry and name claim from the object as it is now (a GET or a
    // one-key listing) and rebuild the level snapshot (issue 27: it lists the level and moves the pointer).
    documents.grantRead(functions["s3-events"]);
    documents.grantLevelSnapshots(functions["s3-events"]);
    table.grantItemActions(functions["s3-events"], "GetItem", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem");
    this.documentEvents = new DocumentEvents(this, "DocumentEvents", { documents, handler: functions["s3-events"] });

    this.webSocketApi = new SkillsWebSocketApi(this, "WebSocketApi", {
      stageName: props.stageName ?? "live",
      authorizer: functions.authorizer,
      connect: functions["ws-connect"],
      disconnect: functions["ws-disconnect"],
      default: functions["ws-default"],
    });
    // The console's config.json names the APIs' URLs, and the HTTP API allows the console's origin:
    // the site's bucket and distribution come first, its asset deployment refers to the API.
    const consoleSite = new ConsoleSite(this, "Console");
    this.httpApi = new SkillsHttpApi(this, "HttpApi", {
      authorizer: functions.authorizer,
      handlers: functions,
      allowedOrigins: [consoleSite.origin],
    });
    consoleSite.deploy(props.consoleAssetsDir, { apiUrl: this.httpApi.url, webSocketUrl: this.webSocketApi.url });
    this.consoleSite = consoleSite;
    this.webSocketApi.grantManageConnections(functions["ws-default"]);
    this.webSocketApi.grantManageConnections(functions["lane-worker"]);
    // FOOT scripts are pushed to a subscribed client from the tools function.
    this.webSocketApi.grantManageConnections(functions["http-tools"]);
    this.webSocketApi.grantManageConnections(functions["http-mcp"]);

    this.alarms = new ServiceAlarms(this, "Alarms", { topicArn: props.alarmTopicArn });
    this.alarms.watchDeadLetterQueue("LaneDeadLetterQueue", lane.deadLetterQueue);
    this.alarms.watchQueueAge("Lane", lane.queue, Duration.minutes(5));
    this.alarms.watchDeadLetterQueue(
      "DocumentEventsDeadLetterQueue",
      this.documentEvents.deadLetterQueue,
      "document events not applied to the catalogue",
    );
    for (const [name, fn] of Object.entries(functions)) this.alarms.watchFunction(constructId(name as FunctionName), fn);

    new CfnOutput(this, "HttpApiUrl", { value: this.httpApi.url });
    new CfnOutput(this, "WebSocketUrl", { value: this.webSocketApi.url });
    new CfnOutput(this, "DocumentsBucketName", { value: documents.bucket.bucketName });
    new CfnOutput(this, "TableName", { value: table.table.tableName });
    new CfnOutput(this, "LaneQueueUrl", { value: lane.queue.queueUrl });
    new CfnOutput(this, "LaneDeadLetterQueueUrl", { value: lane.deadLetterQueue.queueUrl });
    if (this.jwtKeys.secret) new CfnOutput(this, "JwtSecretArn", { value: this.jwtKeys.secret.secretArn });
  }
}
