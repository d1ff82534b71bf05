/**
 * Names of the environment variables through which the deployed stack (and the local stack)
 * tell each handler where its resources are. No AWS or CDK import: handlers read these names
 * at module scope, so the bundle must stay free of infrastructure code.
 *
 * A function receives only the variables of resources it was granted access to, so a missing
 * variable in a handler means a missing grant in the stack, not a configuration typo.
 */
import { BUNDLED_DIR_ENV } from "../shared/documents/bundled-document-layer.js";

export const FUNCTION_ENVIRONMENT = {
  tableName: "SKILLS_TABLE_NAME",
  bucketName: "SKILLS_BUCKET_NAME",
  laneQueueUrl: "SKILLS_LANE_QUEUE_URL",
  /** The lane's DLQ: the worker parks a poison message there at once instead of retrying it. */
  laneDeadLetterQueueUrl: "SKILLS_LANE_DLQ_URL",
  /** The lane's redrive maxReceiveCount: on that delivery the worker settles a failing request and parks it. */
  laneMaxReceiveCount: "SKILLS_LANE_MAX_RECEIVE_COUNT",
  /** `https://{apiId}.execute-api.{region}.amazonaws.com/{stage}`, the PostToConnection endpoint. */
  websocketCallbackUrl: "SKILLS_WS_CALLBACK_URL",
  /** Secrets Manager ARN of the HS256 secret; the secret string is the key itself. */
  jwtSecretArn: "SKILLS_JWT_SECRET_ARN",
  /** Local mode only: the HS256 secret in clear (API.md: defaults to `local-dev-secret`). */
  jwtSecret: "SKILLS_JWT_SECRET",
  /** RS256 keys; optional. */
  jwksUrl: "SKILLS_JWT_JWKS_URL",
  jwtIssuer: "SKILLS_JWT_ISSUER",
  jwtAudience: "SKILLS_JWT_AUDIENCE",
  /** OpenAI-compatible chat endpoint for LLM guards (shared/llm/llm-config.ts); all optional. */
  llmUrl: "SKILLS_LLM_URL",
  llmModel: "SKILLS_LLM_MODEL",
  llmApiKeySecretArn: "SKILLS_LLM_API_KEY_SECRET_ARN",
  llmTimeoutMs: "SKILLS_LLM_TIMEOUT_MS",
  /** Where the RESOURCE skills and recipes were copied next to the bundle. */
  bundledDir: BUNDLED_DIR_ENV,
} as const;

export type FunctionEnvironmentName = (typeof FUNCTION_ENVIRONMENT)[keyof typeof FUNCTION_ENVIRONMENT];
