import { describe, expect, it } from "vitest";
import { FUNCTION_NAMES, type FunctionName } from "../../infra/api-routes.js";
import { FUNCTION_ENVIRONMENT } from "../../infra/function-environment.js";
import { ENV } from "../../shared/config/config.js";
import { functionLogicalId, getAtt, logicalIdOf, synthesizeSkillsStack } from "./synthesize-stack.js";

const synth = synthesizeSkillsStack();
const propertiesOf = (name: FunctionName): Record<string, unknown> => synth.resources[functionLogicalId(synth, name)]!.Properties!;
const environmentOf = (name: FunctionName): Record<string, unknown> =>
  (propertiesOf(name).Environment as { Variables: Record<string, unknown> }).Variables;

const E = FUNCTION_ENVIRONMENT;
// No NODE_OPTIONS: --enable-source-maps decoded every map at load; bundles map stack traces on demand.
const BASE = ["POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE", "POWERTOOLS_LOG_LEVEL", "POWERTOOLS_TRACER_CAPTURE_RESPONSE"];
const SECRETS_EXTENSION = [
  "PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED",
  "PARAMETERS_SECRETS_EXTENSION_CACHE_SIZE",
  "PARAMETERS_SECRETS_EXTENSION_HTTP_PORT",
  "PARAMETERS_SECRETS_EXTENSION_LOG_LEVEL",
  "PARAMETERS_SECRETS_EXTENSION_MAX_CONNECTIONS",
  "SECRETS_MANAGER_TIMEOUT_MILLIS",
  "SECRETS_MANAGER_TTL",
  "SSM_PARAMETER_STORE_TIMEOUT_MILLIS",
  "SSM_PARAMETER_STORE_TTL",
];

/** A function learns the name of exactly the resources it may use. */
const EXPECTED_ENVIRONMENT: Record<FunctionName, string[]> = {
  "http-skills": [E.bundledDir, E.bucketName, E.tableName],
  "http-processes": [E.bundledDir, E.bucketName, E.tableName],
  "http-steer": [E.laneQueueUrl, E.tableName],
  "http-documents": [E.bucketName, E.tableName],
  "http-tools": [E.bundledDir, E.bucketName, E.tableName, E.laneQueueUrl, E.webSocketCallbackUrl],
  "http-mcp": [E.bundledDir, E.bucketName, E.tableName, E.laneQueueUrl, E.webSocketCallbackUrl],
  "lane-worker": [
    E.bundledDir,
    E.bucketName,
    E.tableName,
    E.laneQueueUrl,
    E.laneDeadLetterQueueUrl,
    E.laneMaxReceiveCount,
    E.webSocketCallbackUrl,
  ],
  "ws-connect": [E.tableName],
  "ws-disconnect": [E.tableName],
  "ws-default": [E.bundledDir, E.bucketName, E.tableName, E.laneQueueUrl, E.webSocketCallbackUrl],
  authorizer: [E.jwtSecretArn, ...SECRETS_EXTENSION],
  "s3-events": [E.bucketName, E.tableName],
};

describe("Lambda functions", () => {
  it("exist once per handler folder", () => {
    // Prepare
    const { template } = synth;

    // Act
    const functions = template.findResources("AWS::Lambda::Function");

    // Assess
    expect(Object.keys(functions)).toHaveLength(FUNCTION_NAMES.length);
    expect(Object.keys(synth.stack.functions).sort()).toEqual([...FUNCTION_NAMES].sort());
  });

  it.each(FUNCTION_NAMES)("%s runs the ESM bundle's handler on Node.js 22, arm64", (name) => {
    // Prepare
    const properties = propertiesOf(name);

    // Act
    const { Runtime, Handler, Architectures } = properties;

    // Assess
    expect(Runtime).toBe("nodejs22.x");
    expect(Handler).toBe("index.handler");
    expect(Architectures).toEqual(["arm64"]);
  });

  it.each(FUNCTION_NAMES)("%s is traced with X-Ray, without putting responses (skill bodies, prompts) into traces", (name) => {
    // Prepare
    const properties = propertiesOf(name);

    // Act
    const { TracingConfig } = properties as { TracingConfig?: unknown };

    // Assess
    expect(TracingConfig).toEqual({ Mode: "Active" });
    expect(environmentOf(name).POWERTOOLS_TRACER_CAPTURE_RESPONSE).toBe("false");
  });

  it.each(FUNCTION_NAMES)("%s has a bounded timeout, sized memory and its own log group", (name) => {
    // Prepare
    const properties = propertiesOf(name);
    const logGroupId = logicalIdOf(synth.stack, synth.stack.functions[name].logGroup);

    // Act
    const { Timeout, MemorySize, LoggingConfig } = properties as { Timeout: number; MemorySize: number; LoggingConfig: unknown };

    // Assess
    expect(Timeout).toBeGreaterThanOrEqual(5);
    expect(Timeout).toBeLessThanOrEqual(name === "lane-worker" ? 900 : 29);
    expect(MemorySize).toBeGreaterThanOrEqual(256);
    expect(LoggingConfig).toEqual({ LogGroup: { Ref: logGroupId } });
    expect(synth.resources[logGroupId]!.Properties!.RetentionInDays).toBe(30);
  });

  it.each(FUNCTION_NAMES)("%s gets Powertools settings and exactly its resources' names", (name) => {
    // Prepare
    const environment = environmentOf(name);

    // Act
    const names = Object.keys(environment).sort();

    // Assess
    expect(names).toEqual([...BASE, ...EXPECTED_ENVIRONMENT[name]].sort());
    expect(environment).toMatchObject({
      POWERTOOLS_SERVICE_NAME: "skills",
      POWERTOOLS_METRICS_NAMESPACE: "SkillsService",
      POWERTOOLS_LOG_LEVEL: "INFO",
      POWERTOOLS_TRACER_CAPTURE_RESPONSE: "false",
    });
  });

  it.each(FUNCTION_NAMES)(
    "%s is given only variables the configuration declares (shared/config/config.ts), besides the secrets extension's own",
    (name) => {
      // Prepare
      const declared: string[] = Object.values(ENV);

      // Act
      const undeclared = Object.keys(environmentOf(name)).filter(
        (variable) => !declared.includes(variable) && !SECRETS_EXTENSION.includes(variable),
      );

      // Assess
      expect(undeclared).toEqual([]);
    },
  );

  it("points every resource variable at the stack's own resources", () => {
    // Prepare
    const { stack } = synth;
    const environment = environmentOf("lane-worker");
    const apiId = logicalIdOf(stack, stack.webSocketApi.api);

    // Act
    const callbackUrl = JSON.stringify(environment[E.webSocketCallbackUrl]);

    // Assess
    expect(environment[E.tableName]).toEqual({ Ref: logicalIdOf(stack, stack.table.table) });
    expect(environment[E.bucketName]).toEqual({ Ref: logicalIdOf(stack, stack.documents.bucket) });
    expect(environment[E.laneQueueUrl]).toEqual({ Ref: logicalIdOf(stack, stack.lane.queue) });
    expect(environment[E.laneDeadLetterQueueUrl]).toEqual({ Ref: logicalIdOf(stack, stack.lane.deadLetterQueue) });
    expect(environment[E.bundledDir]).toBe("/var/task/bundled");
    expect(callbackUrl).toContain(`{"Ref":"${apiId}"}`);
    expect(callbackUrl).toMatch(/^\{"Fn::Join":\["",\["https:\/\/",.*"\/live"\]\]\}$/);
    expect(environmentOf("authorizer")[E.jwtSecretArn]).toEqual({ Ref: logicalIdOf(stack, stack.jwtKeys.secret!) });
  });

  it("gives only the authorizer the Parameters and Secrets extension layer", () => {
    // Prepare
    const withLayers = FUNCTION_NAMES.filter((name) => propertiesOf(name).Layers !== undefined);

    // Act
    const layer = JSON.stringify(propertiesOf("authorizer").Layers);

    // Assess
    expect(withLayers).toEqual(["authorizer"]);
    expect(layer).toContain("arm64");
  });
});

describe("lane worker event source", () => {
  it("consumes the lane with partial batch responses, at most 10 messages and bounded concurrency", () => {
    // Prepare
    const { stack, template } = synth;

    // Act
    const mappings = template.findResources("AWS::Lambda::EventSourceMapping");

    // Assess
    expect(Object.values(mappings)).toHaveLength(1);
    const [mapping] = Object.values(mappings) as { Properties: Record<string, unknown> }[];
    expect(mapping!.Properties).toMatchObject({
      EventSourceArn: getAtt(logicalIdOf(stack, stack.lane.queue), "Arn"),
      FunctionName: { Ref: functionLogicalId(synth, "lane-worker") },
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      ScalingConfig: { MaximumConcurrency: 10 },
    });
    expect(mapping!.Properties.BatchSize).toBeLessThanOrEqual(10);
    expect(mapping!.Properties.MaximumBatchingWindowInSeconds).toBeUndefined();
  });

  it("takes the maximum concurrency from the stack props", () => {
    // Prepare
    const custom = synthesizeSkillsStack({ laneWorkerMaxConcurrency: 3 });

    // Act
    const mapping = Object.values(custom.template.findResources("AWS::Lambda::EventSourceMapping"))[0] as {
      Properties: Record<string, unknown>;
    };

    // Assess
    expect(mapping.Properties.ScalingConfig).toEqual({ MaximumConcurrency: 3 });
  });
});
