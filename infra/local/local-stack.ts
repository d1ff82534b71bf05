import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { join, resolve } from "node:path";
import type { SQSBatchResponse } from "aws-lambda";
import { LOCAL_DEV_SECRET } from "../../shared/auth/auth-config.js";
import { awsConfig, ENV, readConfig } from "../../shared/config/config.js";
import type { Identity } from "../../shared/auth/identity.js";
import { issueToken } from "../../shared/auth/token-issuer.js";
import { SqsLanePoller } from "./sqs-lane-poller.js";
import type { SqsLaneIdleOptions } from "./sqs-lane-poller.js";
import { ConnectionRegistry } from "./connection-registry.js";
import { lockDataDir } from "./data-dir-lock.js";
import { FunctionRegistry } from "./function-registry.js";
import type { HandlerOverrides } from "./function-registry.js";
import { gatewayError, MAX_REQUEST_HEADER_BYTES, writeClientError, writeStructured } from "./gateway-errors.js";
import { HttpGateway } from "./http-gateway.js";
import { applyEnvironment, localEnvironment } from "./local-environment.js";
import { startEmulators } from "./local-emulators.js";
import type { AwsEndpoints, RunningEmulators } from "./local-emulators.js";
import { consoleLogger } from "./local-logger.js";
import type { LocalStackLogger } from "./local-logger.js";
import { createLocalResources, DEFAULT_RESOURCE_NAMES, localClients } from "./local-resources.js";
import type { AwsCredentials, LocalClients, LocalResourceNames, LocalResources } from "./local-resources.js";
import { CONNECTIONS_PATH_PREFIX, handleManagementRequest } from "./management-endpoint.js";
import { serveConsole } from "./console-assets.js";
import { isServedHost, servedHostNames } from "./host-names.js";
import type { LocalConsoleConfig } from "./console-assets.js";
import { S3EventEmulator } from "./s3-event-emulator.js";
import { restoreWrittenThrough } from "./s3-write-through.js";
import { replayJournal } from "./sqs-journal.js";
import { failOrphanedRequests } from "./orphaned-requests.js";
import { WEBSOCKET_PATH, WebSocketGateway } from "./websocket-gateway.js";

export const DEFAULT_PORT = 3000;
export const DEFAULT_HOST = "127.0.0.1";
/** API.md "Running locally": the identity of the token printed at startup. */
export const DEFAULT_DEV_IDENTITY: Identity = { tenant: "demo", login: "dev", projects: ["demo"], roles: ["tenant-admin"] };

export interface LaneOptions {
  /** Concurrent receive loops (the event source mapping's maximum concurrency). @default 4 */
  concurrency?: number;
  /** Records per invocation (FIFO: at most 10). @default 10 */
  batchSize?: number;
  /** Long-poll wait per receive, 0–1 s. @default 1 */
  waitTimeSeconds?: number;
  /** Unset: a failed record reappears after the queue's visibility timeout, as on AWS. Tests set 0. */
  retryDelaySeconds?: number;
  /** The lane worker's Lambda timeout; the queue's visibility timeout is six times this. @default 30 000 */
  workerTimeoutMs?: number;
  /** Deliveries before a record moves to the DLQ. @default 5 */
  maxReceiveCount?: number;
}

export interface S3EventOptions {
  /** Pause between two listings of the bucket. @default 1 000 */
  intervalMs?: number;
  /** The s3-events function's Lambda timeout. @default 10 000 */
  functionTimeoutMs?: number;
}

export interface LocalStackOptions {
  /** 0 picks a free port. @default $PORT or 3000 */
  port?: number;
  /** @default 127.0.0.1 */
  host?: string;
  /** Keep DynamoDB (dynalite on LevelDB) and a snapshot of the documents bucket here across restarts. */
  dataDir?: string;
  /** Replace functions by name (tests); the others load from functions/<name>/handler.ts. */
  handlers?: HandlerOverrides;
  /** Load every handler module at startup and refuse to start if one fails. @default true */
  preloadHandlers?: boolean;
  logger?: LocalStackLogger;
  /** Log one line per HTTP request. @default false */
  accessLog?: boolean;
  /** HS256 secret. @default $SKILLS_JWT_SECRET or `local-dev-secret` */
  jwtSecret?: string;
  devIdentity?: Identity;
  /** Lifetime of the printed dev token (seconds or `12h`, `7d`, …). @default 12h */
  devTokenTtl?: number | string;
  /** @default $AWS_REGION or us-east-1 */
  region?: string;
  resourceNames?: Partial<LocalResourceNames>;
  lane?: LaneOptions;
  /**
   * Emulates the bucket's EventBridge notifications (fauxqs sends none): writes that bypass the
   * API reach the s3-events function as on AWS. `false` turns it off. @default {}
   */
  s3Events?: S3EventOptions | false;
  /**
   * Send a `$default` function's response body back to the client, as a route response would.
   * @default false, like the deployed `$default` route (no route response: replies go through PostToConnection)
   */
  webSocketReturnResponse?: boolean;
  webSocketIdleTimeoutMs?: number;
  /** Timeout of HTTP route functions (API Gateway's integration timeout). @default 30 000 */
  integrationTimeoutMs?: number;
  /** Timeout of the authorizer and WebSocket functions. @default 10 000 */
  functionTimeoutMs?: number;
  /** Where AWS_ENDPOINT_URL etc. are read from. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** The identity part of a token; projects and roles default to none. */
export interface TokenIdentity {
  tenant: string;
  login: string;
  projects?: readonly string[];
  roles?: readonly string[];
}

export interface LocalStack {
  readonly httpUrl: string;
  readonly wsUrl: string;
  readonly port: number;
  readonly mode: RunningEmulators["mode"];
  readonly endpoints: AwsEndpoints;
  readonly resources: LocalResources;
  readonly region: string;
  readonly credentials: AwsCredentials;
  readonly devIdentity: Identity;
  readonly devToken: string;
  /** One line per backing service, for the startup banner. */
  readonly description: readonly string[];
  /** Issues an HS256 token the stack's authorizer accepts. */
  token(identity: TokenIdentity, options?: { ttl?: number | string }): Promise<string>;
  /** Resolves once the lane queue is empty and no batch is being handled. */
  laneIdle(options?: SqsLaneIdleOptions): Promise<void>;
  /**
   * Resolves once a scan of the bucket that started after the call handed every changed key to
   * the s3-events function (at once when S3 event emulation is off).
   */
  s3EventsSettled(): Promise<void>;
  /** Stops the gateway, closes every WebSocket ($disconnect runs), stops the poller and the emulators. */
  close(): Promise<void>;
}

/** process.env is global and the handlers read it at module scope: one stack per process at a time. */
export class LocalStackAlreadyRunning extends Error {
  constructor() {
    super("A local stack is already running in this process; close it first");
  }
}

export class PortInUse extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(`Port ${port} on ${host} is in use; choose another with --port or ${ENV.port}`);
  }
}

let running = false;

function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => reject(error.code === "EADDRINUSE" ? new PortInUse(host, port) : error);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolvePort((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolveClose) => {
    if (!server.listening) return resolveClose();
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(force);
      resolveClose();
    });
    server.closeIdleConnections();
  });
}

function rejectUpgrade(socket: Duplex, status: 403 | 503 = 503): void {
  const line = status === 403 ? "403 Forbidden" : "503 Service Unavailable";
  socket.end(`HTTP/1.1 ${line}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
}

function credentialsFor(mode: RunningEmulators["mode"], env: NodeJS.ProcessEnv): AwsCredentials {
  // The emulators accept any key; real keys from the developer's shell must not travel to them.
  if (mode === "emulators") return { accessKeyId: "local", secretAccessKey: "local" };
  const shell = readConfig(env, ["awsAccessKeyId", "awsSecretAccessKey", "awsSessionToken"]);
  return {
    accessKeyId: shell.awsAccessKeyId ?? "test",
    secretAccessKey: shell.awsSecretAccessKey ?? "test",
    sessionToken: shell.awsSessionToken,
  };
}

/**
 * Starts the local stack: emulators (or AWS_ENDPOINT_URL), bucket/table/lane queues, the HTTP +
 * WebSocket gateway on one port and the lane poller. Resolves once `/health` answers 200.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  if (running) throw new LocalStackAlreadyRunning();
  running = true;

  const env = options.env ?? process.env;
  const logger = options.logger ?? consoleLogger;
  const host = options.host ?? DEFAULT_HOST;
  const settings = readConfig(env, ["port", "awsEndpointUrl", "jwtSecret"]);
  const requestedPort = options.port ?? settings.port ?? DEFAULT_PORT;
  const region = options.region ?? awsConfig(env).region;
  const externalEndpoint = settings.awsEndpointUrl;
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  const jwtSecret = options.jwtSecret ?? settings.jwtSecret ?? LOCAL_DEV_SECRET;
  const lane = options.lane ?? {};
  const workerTimeoutMs = lane.workerTimeoutMs ?? 30_000;

  let state: "starting" | "ready" | "stopping" = "starting";
  let unlock: (() => Promise<void>) | undefined;
  let emulators: RunningEmulators | undefined;
  let clients: LocalClients | undefined;
  let resources: LocalResources | undefined;
  let restoreEnv: (() => void) | undefined;
  let poller: SqsLanePoller | undefined;
  let s3Events: S3EventEmulator | undefined;
  let webSocket: WebSocketGateway | undefined;
  let http: HttpGateway | undefined;
  const connections = new ConnectionRegistry();
  let consoleConfig: LocalConsoleConfig | undefined;

  const served = servedHostNames(host);
  const server = createServer({ maxHeaderSize: MAX_REQUEST_HEADER_BYTES }, (req: IncomingMessage, res: ServerResponse) => {
    const rawPath = (req.url ?? "/").split("?")[0] ?? "/";
    // Before anything else, /health and the console included: another host name is a rebinding page (host-names.ts).
    if (!isServedHost(served, req.headers.host)) {
      req.resume();
      writeStructured(
        res,
        gatewayError(
          "FORBIDDEN",
          `Host ${JSON.stringify((req.headers.host ?? "").slice(0, 100))} is not served here; use ${[...served].slice(0, 4).join(", ")}`,
        ),
      );
      return;
    }
    if (rawPath === "/health" && req.method === "GET") {
      const ok = state === "ready" && poller?.isRunning === true;
      writeStructured(res, {
        statusCode: ok ? 200 : 503,
        headers: { "content-type": "application/json", "cache-control": "no-store" },
        body: JSON.stringify({ status: ok ? "ok" : state }),
      });
      return;
    }
    if (serveConsole(req, res, rawPath, consoleConfig)) return;
    if (state !== "ready" || http === undefined) {
      req.resume();
      writeStructured(res, gatewayError("SERVICE_UNAVAILABLE", `The local stack is ${state}`));
      return;
    }
    const handled = rawPath.startsWith(CONNECTIONS_PATH_PREFIX)
      ? handleManagementRequest(req, res, rawPath, connections)
      : http.handle(req, res);
    handled.catch((error: unknown) => {
      logger.error(`Unhandled error for ${req.method ?? "?"} ${rawPath}`, error);
      if (!res.headersSent) writeStructured(res, gatewayError("INTERNAL", "Internal error"));
      else res.destroy();
    });
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => writeClientError(socket, error));
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!isServedHost(served, req.headers.host)) return rejectUpgrade(socket, 403);
    if (state !== "ready" || webSocket === undefined) return rejectUpgrade(socket);
    webSocket.handleUpgrade(req, socket, head);
  });

  const shutdown = async (): Promise<void> => {
    state = "stopping";
    const serverClosed = closeServer(server, 2000);
    await webSocket?.closeAll();
    await poller?.stop();
    await s3Events?.stop();
    await serverClosed;
    clients?.destroy();
    await emulators?.stop();
    restoreEnv?.();
    await unlock?.();
    running = false;
  };

  try {
    if (dataDir !== undefined && externalEndpoint === undefined) unlock = await lockDataDir(dataDir);
    if (dataDir !== undefined && externalEndpoint !== undefined)
      logger.warn(`--data is ignored: state lives at ${ENV.awsEndpointUrl} (${externalEndpoint})`);
    emulators = await startEmulators({
      host: DEFAULT_HOST,
      dataDir,
      externalEndpoint,
      env,
      onPersistError: (error) => logger.error(`Could not write through to ${dataDir ?? ""}`, error),
    });
    const credentials = credentialsFor(emulators.mode, env);
    clients = localClients(emulators.endpoints, region, credentials);
    resources = await createLocalResources(
      clients,
      { ...DEFAULT_RESOURCE_NAMES, ...options.resourceNames },
      {
        region,
        laneVisibilityTimeoutSeconds: Math.ceil((workerTimeoutMs * 6) / 1000),
        laneMaxReceiveCount: lane.maxReceiveCount ?? 5,
      },
    );
    const description = [...emulators.description];
    if (dataDir !== undefined && emulators.mode === "emulators") {
      const restored = await restoreWrittenThrough(clients.s3, resources.bucketName, dataDir);
      const history =
        resources.historyBucketName === undefined ? 0 : await restoreWrittenThrough(clients.s3, resources.historyBucketName, dataDir);
      // Before the poller starts: what the lane had accepted is delivered again, in order.
      const replayed = await replayJournal(clients.sqs, resources.laneQueueUrl, dataDir);
      const parked = await replayJournal(clients.sqs, resources.deadLetterQueueUrl, dataDir);
      description.push(
        `Documents  ${restored} restored from ${join(dataDir, "s3")} (every write is on disk before it is answered), ${history} history copies`,
      );
      // Before the gateway listens: nothing can enqueue while QUEUED records are matched to the lane.
      const orphaned = await failOrphanedRequests(clients.dynamodb, resources.tableName, replayed);
      description.push(
        `Lane       ${replayed.length} message(s) re-enqueued, ${parked.length} parked in the DLQ, from ${join(dataDir, "sqs")}`,
      );
      if (orphaned > 0)
        description.push(
          `Requests   ${orphaned} QUEUED without a lane message failed with SERVICE_UNAVAILABLE (the stack stopped between record and enqueue)`,
        );
    }

    const port = await listen(server, requestedPort, host);
    const baseUrl = `http://${urlHost(host)}:${port}`;
    restoreEnv = applyEnvironment(
      localEnvironment({ resources, emulators, region, credentials, managementEndpoint: baseUrl, jwtSecret }),
      process.env,
    );

    const functions = new FunctionRegistry({ overrides: options.handlers, region });
    if (options.preloadHandlers ?? true) await functions.preload();
    const functionTimeoutMs = options.functionTimeoutMs ?? 10_000;
    http = new HttpGateway({
      functions,
      region,
      logger,
      integrationTimeoutMs: options.integrationTimeoutMs,
      authorizerTimeoutMs: functionTimeoutMs,
      accessLog: options.accessLog,
    });
    webSocket = new WebSocketGateway({
      functions,
      connections,
      region,
      logger,
      functionTimeoutMs,
      returnResponse: options.webSocketReturnResponse ?? false,
      idleTimeoutMs: options.webSocketIdleTimeoutMs,
    });
    poller = new SqsLanePoller({
      sqs: clients.sqs,
      queueUrl: resources.laneQueueUrl,
      handler: async (event, context) =>
        (await functions.invoke("lane-worker", event, { timeoutMs: workerTimeoutMs, context })) as SQSBatchResponse | undefined,
      concurrency: lane.concurrency ?? 4,
      batchSize: lane.batchSize ?? 10,
      waitTimeSeconds: lane.waitTimeSeconds ?? 1,
      ...(lane.retryDelaySeconds === undefined ? {} : { retryDelaySeconds: lane.retryDelaySeconds }),
      functionName: "lane-worker",
      functionTimeoutMs: workerTimeoutMs,
      logger: {
        warn: (message, ...extra) => logger.warn(message, extra[0]),
        error: (message, ...extra) => logger.error(message, extra[0]),
      },
    });
    await poller.start();

    if (options.s3Events !== false) {
      const s3EventOptions = options.s3Events ?? {};
      const intervalMs = s3EventOptions.intervalMs ?? 1000;
      const timeoutMs = s3EventOptions.functionTimeoutMs ?? 10_000;
      // Started after the snapshot was restored: documents present at start are the baseline, not events.
      s3Events = new S3EventEmulator({
        s3: clients.s3,
        bucketName: resources.bucketName,
        region,
        deliver: async (event) => void (await functions.invoke("s3-events", event, { timeoutMs })),
        intervalMs,
        logger,
      });
      await s3Events.start();
      description.push(
        `S3 events  catalogue keys listed every ${intervalMs} ms, changed ETags → s3-events (fauxqs sends no notifications)`,
      );
    }

    const devIdentity = options.devIdentity ?? DEFAULT_DEV_IDENTITY;
    const token = (identity: TokenIdentity, tokenOptions: { ttl?: number | string } = {}): Promise<string> =>
      issueToken({ projects: [], roles: [], ...identity }, jwtSecret, { ttl: tokenOptions.ttl ?? "1h" });
    const devToken = await token(devIdentity, { ttl: options.devTokenTtl ?? "12h" });
    consoleConfig = { devToken };
    state = "ready";

    const activePoller = poller;
    const activeS3Events = s3Events;
    let closing: Promise<void> | undefined;
    return {
      httpUrl: baseUrl,
      wsUrl: `ws://${urlHost(host)}:${port}${WEBSOCKET_PATH}`,
      port,
      mode: emulators.mode,
      endpoints: emulators.endpoints,
      resources,
      region,
      credentials,
      devIdentity,
      devToken,
      description,
      token,
      laneIdle: (idleOptions) => activePoller.idle(idleOptions),
      s3EventsSettled: async () => activeS3Events?.settled(),
      close: () => (closing ??= shutdown()),
    };
  } catch (error) {
    await shutdown().catch((cleanupError: unknown) => logger.error("Cleanup after a failed start failed", cleanupError));
    throw error;
  }
}
