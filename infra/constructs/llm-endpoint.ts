import { Grant } from "aws-cdk-lib/aws-iam";
import { Secret, type ISecret } from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";
import { FUNCTION_ENVIRONMENT } from "../function-environment.js";
import { InfraConfigurationError } from "../infra-errors.js";
import type { ResourceUser } from "./resource-user.js";

interface LlmEndpointProps {
  /** Base URL of an OpenAI-compatible chat-completions API (https). */
  url: string;
  model: string;
  /** Complete ARN of a secret whose string is the API key; read through the secrets extension. */
  apiKeySecretArn?: string;
  timeoutMs?: number;
}

/**
 * The LLM that LLM-backed guards call (shared/llm). Optional: without it guards that need an
 * LLM fail open. The API key stays in Secrets Manager; the function only learns its ARN.
 */
export class LlmEndpoint extends Construct {
  readonly apiKeySecret: ISecret | undefined;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: LlmEndpointProps,
  ) {
    super(scope, id);
    if (!/^https:\/\/[^\s]+$/.test(props.url)) throw new InfraConfigurationError(`llmUrl must be an https URL, got '${props.url}'`);
    if (props.model.trim() === "") throw new InfraConfigurationError("llmModel is required with llmUrl");
    if (props.timeoutMs !== undefined && !(Number.isInteger(props.timeoutMs) && props.timeoutMs > 0)) {
      throw new InfraConfigurationError(`llmTimeoutMs must be a positive integer, got ${props.timeoutMs}`);
    }
    this.apiKeySecret = props.apiKeySecretArn ? Secret.fromSecretCompleteArn(this, "ApiKey", props.apiKeySecretArn) : undefined;
  }

  /** The endpoint settings as environment, plus secretsmanager:GetSecretValue on the key's secret only. */
  grantUse(user: ResourceUser): Grant | undefined {
    user.addEnvironment(FUNCTION_ENVIRONMENT.llmUrl, this.props.url);
    user.addEnvironment(FUNCTION_ENVIRONMENT.llmModel, this.props.model);
    if (this.props.timeoutMs !== undefined) user.addEnvironment(FUNCTION_ENVIRONMENT.llmTimeoutMs, String(this.props.timeoutMs));
    if (!this.apiKeySecret) return undefined;
    user.addEnvironment(FUNCTION_ENVIRONMENT.llmApiKeySecretArn, this.apiKeySecret.secretArn);
    return Grant.addToPrincipal({ grantee: user, actions: ["secretsmanager:GetSecretValue"], resourceArns: [this.apiKeySecret.secretArn] });
  }
}
