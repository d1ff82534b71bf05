import { FUNCTION_ENVIRONMENT } from "./function-environment.js";

/**
 * The environment of a deployed function with placeholder resources: enough to import a bundle in
 * a fresh Node process (nothing is called at import). Used by the bundling test and the bundle bench.
 */
export const placeholderFunctionEnvironment = (bundledDir: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  AWS_REGION: "us-east-1",
  AWS_ACCESS_KEY_ID: "placeholder",
  AWS_SECRET_ACCESS_KEY: "placeholder",
  [FUNCTION_ENVIRONMENT.tableName]: "skills-table",
  [FUNCTION_ENVIRONMENT.bucketName]: "skills-bucket",
  [FUNCTION_ENVIRONMENT.laneQueueUrl]: "https://sqs.us-east-1.amazonaws.com/123456789012/skills-lane.fifo",
  [FUNCTION_ENVIRONMENT.websocketCallbackUrl]: "https://example.invalid/live",
  [FUNCTION_ENVIRONMENT.jwtSecretArn]: "arn:aws:secretsmanager:us-east-1:123456789012:secret:jwt-AbCdEf",
  [FUNCTION_ENVIRONMENT.bundledDir]: bundledDir,
});
