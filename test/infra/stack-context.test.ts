import { App } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import { InfraConfigurationError } from "../../infra/infra-errors.js";
import { DEFAULT_STACK_NAME, readStackContext } from "../../infra/stack-context.js";

const appWith = (context: Record<string, unknown>): App => new App({ context });

describe("readStackContext", () => {
  it("defaults to the SkillsService stack with no optional settings", () => {
    // Prepare
    const app = appWith({});

    // Act
    const { stackName, props } = readStackContext(app.node);

    // Assess
    expect(stackName).toBe(DEFAULT_STACK_NAME);
    expect(Object.values(props).filter((value) => value !== undefined)).toEqual([]);
  });

  it("passes every deploy-time setting through", () => {
    // Prepare
    const app = appWith({
      stackName: "SkillsBeta",
      stageName: "beta",
      jwtSecretArn: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:jwt-AbCdEf",
      jwksUrl: "https://login.example/jwks.json",
      jwtIssuer: "https://login.example",
      jwtAudience: "skills",
      alarmTopicArn: "arn:aws:sns:eu-west-1:123456789012:alarms",
      llmUrl: "https://llm.example/v1",
      llmModel: "guard-model",
      llmApiKeySecretArn: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:llm-AbCdEf",
      llmTimeoutMs: "5000",
    });

    // Act
    const { stackName, props } = readStackContext(app.node);

    // Assess
    expect(stackName).toBe("SkillsBeta");
    expect(props).toEqual({
      stageName: "beta",
      jwtSecretArn: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:jwt-AbCdEf",
      jwksUrl: "https://login.example/jwks.json",
      jwtIssuer: "https://login.example",
      jwtAudience: "skills",
      alarmTopicArn: "arn:aws:sns:eu-west-1:123456789012:alarms",
      llmUrl: "https://llm.example/v1",
      llmModel: "guard-model",
      llmApiKeySecretArn: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:llm-AbCdEf",
      llmTimeoutMs: 5000,
    });
  });

  it("treats an empty value as not given", () => {
    // Prepare
    const app = appWith({ jwksUrl: "", stageName: "" });

    // Act
    const { props } = readStackContext(app.node);

    // Assess
    expect(props.jwksUrl).toBeUndefined();
    expect(props.stageName).toBeUndefined();
  });

  it.each([
    [{ stageName: "live/../x" }, /stageName/],
    [{ stackName: "9lives" }, /stackName/],
    [{ jwtIssuer: 42 }, /jwtIssuer/],
    [{ llmTimeoutMs: "soon" }, /llmTimeoutMs/],
  ])("rejects %j at synth time", (context, message) => {
    // Prepare
    const app = appWith(context);

    // Act
    const read = (): unknown => readStackContext(app.node);

    // Assess
    expect(read).toThrow(InfraConfigurationError);
    expect(read).toThrow(message);
  });
});
