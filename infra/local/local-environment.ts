import { ENV } from "../../shared/config/config.js";
import { FUNCTION_ENVIRONMENT } from "../function-environment.js";
import type { AwsCredentials, LocalResources } from "./local-resources.js";
import type { RunningEmulators } from "./local-emulators.js";

/**
 * The variables the deployed stack gives each function, with local values (every name from
 * shared/config/config.ts). The handlers read them at module scope, so they are set before any
 * handler module is imported.
 */
export interface LocalEnvironmentInput {
  resources: LocalResources;
  emulators: RunningEmulators;
  region: string;
  credentials: AwsCredentials;
  /** `http://127.0.0.1:<port>`: PostToConnection then reaches `/@connections/{id}` of the local gateway. */
  managementEndpoint: string;
  jwtSecret: string;
}

export function localEnvironment(input: LocalEnvironmentInput): Record<string, string | undefined> {
  const { resources, emulators, credentials } = input;
  const vars: Record<string, string | undefined> = {
    [FUNCTION_ENVIRONMENT.tableName]: resources.tableName,
    [FUNCTION_ENVIRONMENT.bucketName]: resources.bucketName,
    [FUNCTION_ENVIRONMENT.laneQueueUrl]: resources.laneQueueUrl,
    [FUNCTION_ENVIRONMENT.laneDeadLetterQueueUrl]: resources.deadLetterQueueUrl,
    [FUNCTION_ENVIRONMENT.laneMaxReceiveCount]: String(resources.laneMaxReceiveCount),
    [FUNCTION_ENVIRONMENT.webSocketCallbackUrl]: input.managementEndpoint,
    [FUNCTION_ENVIRONMENT.jwtSecret]: input.jwtSecret,
    // The secret is given in clear locally; an ARN from the shell would send the authorizer to Secrets Manager.
    [FUNCTION_ENVIRONMENT.jwtSecretArn]: undefined,
    [ENV.localMode]: "1",
    // fauxqs has no S3 versioning: every write is also copied there (HistoryKeepingDocumentStore).
    [ENV.historyBucketName]: resources.historyBucketName,
    [ENV.awsRegion]: input.region,
    [ENV.awsAccessKeyId]: credentials.accessKeyId,
    [ENV.awsSecretAccessKey]: credentials.secretAccessKey,
    [ENV.awsSessionToken]: credentials.sessionToken,
    [ENV.awsSdkNodeVersionWarningDisabled]: process.env[ENV.awsSdkNodeVersionWarningDisabled] ?? "true",
    // EMF metric blobs on stdout help nobody locally; POWERTOOLS_METRICS_DISABLED=false brings them back.
    [ENV.powertoolsMetricsDisabled]: process.env[ENV.powertoolsMetricsDisabled] ?? "true",
    [ENV.powertoolsMetricsNamespace]: process.env[ENV.powertoolsMetricsNamespace] ?? "SkillsLocal",
  };
  if (emulators.mode === "emulators") {
    vars[ENV.awsEndpointUrl] = undefined;
    vars[ENV.awsEndpointUrlDynamodb] = emulators.endpoints.dynamodb;
    vars[ENV.awsEndpointUrlS3] = emulators.endpoints.s3;
    vars[ENV.awsEndpointUrlSqs] = emulators.endpoints.sqs;
  }
  return vars;
}

/** Sets `vars` on process.env (undefined removes) and returns a function that restores the previous values. */
export function applyEnvironment(vars: Record<string, string | undefined>, env: NodeJS.ProcessEnv = process.env): () => void {
  const previous = Object.fromEntries(Object.keys(vars).map((name) => [name, env[name]]));
  const set = (values: Record<string, string | undefined>): void => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
  };
  set(vars);
  return () => set(previous);
}
