import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { ENV, readConfig } from "../../shared/config/config.js";
import { S3WriteThrough } from "./s3-write-through.js";
import { SqsJournal } from "./sqs-journal.js";

export interface AwsEndpoints {
  dynamodb: string;
  s3: string;
  sqs: string;
}

export interface RunningEmulators {
  /** `emulators`: dynalite + fauxqs in this process; `external`: AWS_ENDPOINT_URL (e.g. LocalStack). */
  mode: "emulators" | "external";
  endpoints: AwsEndpoints;
  /** One line per service, for the startup banner. */
  description: string[];
  stop(): Promise<void>;
}

interface EmulatorOptions {
  /** Interface the emulators listen on; they are never exposed beyond it. */
  host: string;
  /** dynalite keeps its LevelDB here (`<dir>/dynamodb`); unset: in memory. */
  dataDir?: string | undefined;
  /** AWS_ENDPOINT_URL: use this endpoint and start nothing. */
  externalEndpoint?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** A write-through to `dataDir` that failed (the request it belongs to was still answered). */
  onPersistError?: (error: unknown) => void;
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

async function startDynalite(host: string, dataDir: string | undefined): Promise<{ url: string; stop(): Promise<void> }> {
  const { default: dynalite } = await import("dynalite");
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(dataDir === undefined ? {} : { path: join(dataDir, "dynamodb") }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: urlOf(host, port),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * fauxqs' own startFauxqs listens on every interface; building the app and listening on `host`
 * keeps the documents and queues of a developer machine off the local network. With `dataDir`,
 * every acknowledged S3 write and SQS message is on disk before fauxqs answers (write-through).
 */
async function startFauxqs(
  host: string,
  dataDir: string | undefined,
  onPersistError: (error: unknown) => void,
): Promise<{ url: string; stop(): Promise<void> }> {
  const { buildApp } = await import("fauxqs");
  const app = buildApp({ logger: false });
  if (dataDir !== undefined) {
    new S3WriteThrough(app, dataDir, onPersistError).register();
    new SqsJournal(app, dataDir, onPersistError).register();
  }
  await app.listen({ port: 0, host });
  const { port } = app.server.address() as AddressInfo;
  return { url: urlOf(host, port), stop: () => app.close() };
}

export async function startEmulators(options: EmulatorOptions): Promise<RunningEmulators> {
  const env = options.env ?? process.env;
  if (options.externalEndpoint) {
    const perService = readConfig(env, ["awsEndpointUrlDynamodb", "awsEndpointUrlS3", "awsEndpointUrlSqs"]);
    const endpoints = {
      dynamodb: perService.awsEndpointUrlDynamodb ?? options.externalEndpoint,
      s3: perService.awsEndpointUrlS3 ?? options.externalEndpoint,
      sqs: perService.awsEndpointUrlSqs ?? options.externalEndpoint,
    };
    return {
      mode: "external",
      endpoints,
      description: [`AWS endpoint ${options.externalEndpoint} (${ENV.awsEndpointUrl}; no emulator started)`],
      stop: async () => undefined,
    };
  }
  const dynamo = await startDynalite(options.host, options.dataDir);
  let fauxqs;
  try {
    fauxqs = await startFauxqs(options.host, options.dataDir, options.onPersistError ?? (() => undefined));
  } catch (error) {
    await dynamo.stop();
    throw error;
  }
  const storage = options.dataDir === undefined ? "in memory" : `on disk in ${join(options.dataDir, "dynamodb")}`;
  return {
    mode: "emulators",
    endpoints: { dynamodb: dynamo.url, s3: fauxqs.url, sqs: fauxqs.url },
    description: [
      `DynamoDB   ${dynamo.url} (dynalite, ${storage})`,
      `S3 + SQS   ${fauxqs.url} (fauxqs, ${options.dataDir === undefined ? "in memory" : `written through to ${join(options.dataDir, "s3")} and ${join(options.dataDir, "sqs")}`})`,
    ],
    stop: async () => {
      await Promise.all([fauxqs.stop(), dynamo.stop()]);
    },
  };
}
