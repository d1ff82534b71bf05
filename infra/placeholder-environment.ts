import { ENV } from "../shared/config/config.js";
import { FUNCTION_ENVIRONMENT } from "./function-environment.js";

/**
 * The environment of a deployed function with placeholder resources: enough to import a bundle in
 * a fresh Node process (nothing is called at import). Used by the bundling test and the bundle bench.
 */
export const placeholderFunctionEnvironment = (bundledDir: string): NodeJS.ProcessEnv => ({
  [ENV.path]: process.env[ENV.path],
  [ENV.awsRegion]: "us-east-1",
  [ENV.awsAccessKeyId]: "placeholder",
  [ENV.awsSecretAccessKey]: "placeholder",
  [FUNCTION_ENVIRONMENT.tableName]: "skills-table",
  [FUNCTION_ENVIRONMENT.bucketName]: "skills-bucket",
  [FUNCTION_ENVIRONMENT.laneQueueUrl]: "https://sqs.us-east-1.amazonaws.com/123456789012/skills-lane.fifo",
  [FUNCTION_ENVIRONMENT.webSocketCallbackUrl]: "https://example.invalid/live",
  [FUNCTION_ENVIRONMENT.jwtSecretArn]: "arn:aws:secretsmanager:us-east-1:123456789012:secret:jwt-AbCdEf",
  [FUNCTION_ENVIRONMENT.bundledDir]: bundledDir,
});
