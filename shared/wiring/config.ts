/**
 * Deployment configuration, read once from the environment by every handler and by the local
 * stack (which sets the same variables before it loads the handlers).
 */
export interface RuntimeConfig {
  tableName: string;
  bucketName: string;
  laneQueueUrl: string;
  /** API Gateway management endpoint of the WebSocket API (https://…/stage), if any. */
  webSocketEndpoint?: string | undefined;
  region: string;
  /** Endpoint overrides (LocalStack: one for all; the local emulators: one per service); unset on AWS. */
  endpoints: { s3?: string | undefined; dynamodb?: string | undefined; sqs?: string | undefined };
}

export const ENV = {
  table: "SKILLS_TABLE_NAME",
  bucket: "SKILLS_BUCKET_NAME",
  laneQueueUrl: "SKILLS_LANE_QUEUE_URL",
  webSocketEndpoint: "SKILLS_WS_ENDPOINT",
  jwtSecret: "SKILLS_JWT_SECRET",
  localMode: "SKILLS_LOCAL_MODE",
} as const;

export class ConfigurationError extends Error {}

export function runtimeConfig(env: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  const required = (name: string): string => {
    const value = env[name];
    if (value === undefined || value === "") throw new ConfigurationError(`environment variable ${name} is not set`);
    return value;
  };
  return {
    tableName: required(ENV.table),
    bucketName: required(ENV.bucket),
    laneQueueUrl: required(ENV.laneQueueUrl),
    webSocketEndpoint: env[ENV.webSocketEndpoint] || undefined,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || "us-east-1",
    // The SDK's own names: AWS_ENDPOINT_URL, and AWS_ENDPOINT_URL_<SERVICE> taking precedence.
    endpoints: {
      s3: env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined,
      dynamodb: env.AWS_ENDPOINT_URL_DYNAMODB || env.AWS_ENDPOINT_URL || undefined,
      sqs: env.AWS_ENDPOINT_URL_SQS || env.AWS_ENDPOINT_URL || undefined,
    },
  };
}
