/**
 * The variables through which the deployed stack (and the local stack) tell each handler where
 * its resources are: a selection of the service's configuration (shared/config/config.ts, where
 * every variable has its one name, schema and doc). No AWS or CDK import: plain data.
 *
 * A function receives only the variables of resources it was granted access to, so a missing
 * variable in a handler means a missing grant in the stack, not a configuration typo.
 */
import { ENV } from "../shared/config/config.js";

export const FUNCTION_ENVIRONMENT = {
  tableName: ENV.tableName,
  bucketName: ENV.bucketName,
  laneQueueUrl: ENV.laneQueueUrl,
  laneDeadLetterQueueUrl: ENV.laneDeadLetterQueueUrl,
  laneMaxReceiveCount: ENV.laneMaxReceiveCount,
  webSocketCallbackUrl: ENV.webSocketCallbackUrl,
  jwtSecretArn: ENV.jwtSecretArn,
  /** Local mode only (the local stack); the deployed stack gives the ARN. */
  jwtSecret: ENV.jwtSecret,
  jwksUrl: ENV.jwksUrl,
  jwtIssuer: ENV.jwtIssuer,
  jwtAudience: ENV.jwtAudience,
  llmUrl: ENV.llmUrl,
  llmModel: ENV.llmModel,
  llmApiKeySecretArn: ENV.llmApiKeySecretArn,
  llmTimeoutMs: ENV.llmTimeoutMs,
  bundledDir: ENV.bundledDir,
  /** Set on every function by SkillsFunction, for Powertools. */
  powertoolsServiceName: ENV.powertoolsServiceName,
  powertoolsMetricsNamespace: ENV.powertoolsMetricsNamespace,
  powertoolsLogLevel: ENV.powertoolsLogLevel,
  powertoolsTracerCaptureResponse: ENV.powertoolsTracerCaptureResponse,
} as const;

export type FunctionEnvironmentName = (typeof FUNCTION_ENVIRONMENT)[keyof typeof FUNCTION_ENVIRONMENT];
