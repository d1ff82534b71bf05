import type { Node } from "constructs";
import { InfraConfigurationError } from "./infra-errors.js";
import type { SkillsStackProps } from "./skills-stack.js";

/** `npx cdk deploy -c jwksUrl=https://… -c alarmTopicArn=arn:…`; every key is optional. */
const CONTEXT_KEYS = {
  stackName: "stackName",
  stageName: "stageName",
  jwtSecretArn: "jwtSecretArn",
  jwksUrl: "jwksUrl",
  jwtIssuer: "jwtIssuer",
  jwtAudience: "jwtAudience",
  alarmTopicArn: "alarmTopicArn",
  llmUrl: "llmUrl",
  llmModel: "llmModel",
  llmApiKeySecretArn: "llmApiKeySecretArn",
  llmTimeoutMs: "llmTimeoutMs",
} as const;

export const DEFAULT_STACK_NAME = "SkillsService";

interface StackContext {
  stackName: string;
  props: SkillsStackProps;
}

const STAGE_NAME = /^[A-Za-z0-9_-]{1,128}$/;
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,63}$/;

/** Reads and checks the deploy-time settings; a bad value fails the synth, not the deployment. */
export function readStackContext(node: Node): StackContext {
  const text = (key: string): string | undefined => {
    const value: unknown = node.tryGetContext(key);
    if (value === undefined || value === null || value === "") return undefined;
    if (typeof value !== "string") throw new InfraConfigurationError(`Context '${key}' must be a string`);
    return value;
  };
  const stackName = text(CONTEXT_KEYS.stackName) ?? DEFAULT_STACK_NAME;
  if (!STACK_NAME.test(stackName)) throw new InfraConfigurationError(`Context 'stackName' must match ${STACK_NAME}, got '${stackName}'`);
  const stageName = text(CONTEXT_KEYS.stageName);
  if (stageName !== undefined && !STAGE_NAME.test(stageName)) {
    throw new InfraConfigurationError(`Context 'stageName' must match ${STAGE_NAME}, got '${stageName}'`);
  }
  // `-c llmTimeoutMs=5000` arrives as a string, a cdk.json value as a number.
  const rawTimeout: unknown = node.tryGetContext(CONTEXT_KEYS.llmTimeoutMs);
  const llmTimeoutMs = rawTimeout === undefined || rawTimeout === "" ? undefined : Number(rawTimeout);
  if (llmTimeoutMs !== undefined && !(Number.isInteger(llmTimeoutMs) && llmTimeoutMs > 0)) {
    throw new InfraConfigurationError(`Context 'llmTimeoutMs' must be a positive integer, got '${String(rawTimeout)}'`);
  }
  return {
    stackName,
    props: {
      stageName,
      jwtSecretArn: text(CONTEXT_KEYS.jwtSecretArn),
      jwksUrl: text(CONTEXT_KEYS.jwksUrl),
      jwtIssuer: text(CONTEXT_KEYS.jwtIssuer),
      jwtAudience: text(CONTEXT_KEYS.jwtAudience),
      alarmTopicArn: text(CONTEXT_KEYS.alarmTopicArn),
      llmUrl: text(CONTEXT_KEYS.llmUrl),
      llmModel: text(CONTEXT_KEYS.llmModel),
      llmApiKeySecretArn: text(CONTEXT_KEYS.llmApiKeySecretArn),
      llmTimeoutMs,
    },
  };
}
