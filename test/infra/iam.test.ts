import { Match } from "aws-cdk-lib/assertions";
import { describe, expect, it } from "vitest";
import { FUNCTION_NAMES, type FunctionName } from "../../infra/api-routes.js";
import {
  actionsOf,
  functionLogicalId,
  getAtt,
  logicalIdOf,
  statementsOf,
  statementsWith,
  synthesizeSkillsStack,
  type PolicyStatement,
  type SynthesizedStack,
} from "./synthesize-stack.js";

const synth = synthesizeSkillsStack();

const LOGS = ["logs:CreateLogStream", "logs:PutLogEvents"];
const S3_READ = ["s3:GetObject", "s3:ListBucket"];
/** GetObject/HeadObject with a VersionId: a recipe's pinned skill version (issue 17). */
const S3_READ_VERSION = [...S3_READ, "s3:GetObjectVersion"];
/** ListObjectVersions too: the versions API of http-documents. */
const S3_READ_HISTORY = [...S3_READ_VERSION, "s3:ListBucketVersions"];
/** Level snapshots (issue 27): written under `catalogue-snapshots/*` only (asserted below). */
const S3_SNAPSHOTS = ["s3:PutObject", "s3:DeleteObject"];
const SQS_CONSUME = ["sqs:ChangeMessageVisibility", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:ReceiveMessage"];
const ddb = (...actions: string[]): string[] => actions.map((action) => `dynamodb:${action}`);
/** Active tracing: every function writes X-Ray segments. X-Ray has no resource-level permissions, so these are the one grant on "*". */
const XRAY = ["xray:PutTelemetryRecords", "xray:PutTraceSegments"];
const isXRayStatement = (statement: PolicyStatement): boolean => JSON.stringify(actionsOf([statement]).sort()) === JSON.stringify(XRAY);

/** Everything each function may do; anything more is a least-privilege regression. */
const EXPECTED_ACTIONS: Record<FunctionName, string[]> = {
  "http-skills": [...LOGS, ...S3_READ, ...ddb("GetItem", "Query", "BatchGetItem", "PutItem", "DeleteItem", "UpdateItem")],
  "http-processes": [...LOGS, ...S3_READ_VERSION, ...S3_SNAPSHOTS, ...ddb("GetItem", "Query", "BatchGetItem", "PutItem", "UpdateItem")],
  "http-steer": [...LOGS, "sqs:SendMessage", ...ddb("GetItem", "PutItem", "UpdateItem")],
  "http-documents": [
    ...LOGS,
    ...S3_READ_HISTORY,
    "s3:PutObject",
    "s3:DeleteObject",
    ...ddb("GetItem", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"),
  ],
  "http-tools": [
    ...LOGS,
    ...S3_READ_VERSION,
    "s3:PutObject",
    "s3:DeleteObject",
    "sqs:SendMessage",
    ...ddb("GetItem", "Query", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"),
    "execute-api:ManageConnections",
  ],
  "http-mcp": [
    ...LOGS,
    ...S3_READ_VERSION,
    "s3:PutObject",
    "s3:DeleteObject",
    "sqs:SendMessage",
    ...ddb("GetItem", "Query", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"),
    "execute-api:ManageConnections",
  ],
  "lane-worker": [
    ...LOGS,
    ...S3_READ_VERSION,
    ...S3_SNAPSHOTS,
    ...ddb("GetItem", "Query", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"),
    "sqs:SendMessage",
    ...SQS_CONSUME,
    "execute-api:ManageConnections",
  ],
  "ws-connect": [...LOGS, ...ddb("PutItem")],
  "ws-disconnect": [...LOGS, ...ddb("Query", "DeleteItem", "BatchWriteItem")],
  "ws-default": [
    ...LOGS,
    ...S3_READ,
    ...ddb("GetItem", "Query", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"),
    "sqs:SendMessage",
    "execute-api:ManageConnections",
  ],
  authorizer: [...LOGS, "secretsmanager:GetSecretValue"],
  // Lambda sends an event the function kept failing to the document events' DLQ with the function's role.
  // Issue 27: it reads the changed object, keeps the level's counters and name claims, and rebuilds the level snapshot.
  "s3-events": [
    ...LOGS,
    ...S3_READ,
    ...S3_SNAPSHOTS,
    ...ddb("GetItem", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem"),
    "sqs:SendMessage",
  ],
};

const resourcesOf = (statements: PolicyStatement[]): unknown[] =>
  statements.flatMap((statement) => (Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource]));

const allStatements = (s: SynthesizedStack): PolicyStatement[] =>
  Object.values(s.resources)
    .filter((resource) => resource.Type === "AWS::IAM::Policy")
    .flatMap((policy) => (policy.Properties!.PolicyDocument as { Statement: PolicyStatement[] }).Statement);

describe("least-privilege IAM", () => {
  it.each(FUNCTION_NAMES)("%s may do exactly what it uses", (name) => {
    // Prepare
    const statements = statementsOf(synth, name);

    // Act
    const actions = actionsOf(statements);

    // Assess
    expect(actions).toEqual([...EXPECTED_ACTIONS[name], ...XRAY].sort());
  });

  it("grants no wildcard action and no unbounded resource anywhere, except X-Ray's trace writes", () => {
    // Prepare
    const statements = allStatements(synth);

    // Act
    const actions = actionsOf(statements);
    const resources = resourcesOf(statements.filter((statement) => !isXRayStatement(statement)));
    const xrayResources = resourcesOf(statements.filter(isXRayStatement));

    // Assess
    expect(statements.length).toBeGreaterThan(FUNCTION_NAMES.length);
    expect(actions.filter((action) => action.includes("*"))).toEqual([]);
    expect(resources.filter((resource) => resource === "*")).toEqual([]);
    expect(xrayResources.length).toBeGreaterThanOrEqual(FUNCTION_NAMES.length);
    expect(new Set(xrayResources)).toEqual(new Set(["*"]));
    expect(statements.every((statement) => statement.Effect === "Allow")).toBe(true);
  });

  it("attaches no managed policy (not even AWSLambdaBasicExecutionRole, which allows logs on '*')", () => {
    // Prepare
    const roles = Object.values(synth.resources).filter((resource) => resource.Type === "AWS::IAM::Role");

    // Act
    const managed = roles.flatMap((role) => (role.Properties!.ManagedPolicyArns as unknown[] | undefined) ?? []);

    // Assess
    expect(roles).toHaveLength(FUNCTION_NAMES.length);
    expect(managed).toEqual([]);
  });

  it("lets each function write logs to its own log group only", () => {
    // Prepare
    const { stack } = synth;

    // Act
    const logResources = FUNCTION_NAMES.map((name) => resourcesOf(statementsWith(statementsOf(synth, name), "logs:PutLogEvents")));

    // Assess
    FUNCTION_NAMES.forEach((name, index) => {
      expect(logResources[index]).toEqual([getAtt(logicalIdOf(stack, stack.functions[name].logGroup), "Arn")]);
    });
  });

  it.each(["lane-worker", "s3-events"] as const)("lets %s write objects only under catalogue-snapshots/", (name) => {
    // Prepare
    const bucketArn = getAtt(logicalIdOf(synth.stack, synth.stack.documents.bucket), "Arn");
    const statements = statementsOf(synth, name);

    // Act
    const writeResources = ["s3:PutObject", "s3:DeleteObject"].flatMap((action) => resourcesOf(statementsWith(statements, action)));

    // Assess
    expect(new Set(writeResources.map((r) => JSON.stringify(r)))).toEqual(
      new Set([JSON.stringify({ "Fn::Join": ["", [bucketArn, "/catalogue-snapshots/*"]] })]),
    );
  });

  it.each(["http-skills", "ws-default"] as const)(
    "lets %s read level snapshots (GetObject on catalogue-snapshots/), write none",
    (name) => {
      // Prepare
      const bucketArn = getAtt(logicalIdOf(synth.stack, synth.stack.documents.bucket), "Arn");
      const statements = statementsOf(synth, name);

      // Act
      const readResources = resourcesOf(statementsWith(statements, "s3:GetObject")).map((r) => JSON.stringify(r));
      const writes = actionsOf(statements).filter((action) => action === "s3:PutObject" || action === "s3:DeleteObject");

      // Assess
      expect(readResources).toContain(JSON.stringify({ "Fn::Join": ["", [bucketArn, "/catalogue-snapshots/*"]] }));
      expect(writes).toEqual([]);
    },
  );

  it("scopes document object access to the tenants/ prefix and listing to the bucket", () => {
    // Prepare
    const bucketArn = getAtt(logicalIdOf(synth.stack, synth.stack.documents.bucket), "Arn");
    const statements = statementsOf(synth, "http-documents");

    // Act
    const objectResources = ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"].flatMap((action) =>
      resourcesOf(statementsWith(statements, action)),
    );
    const readResources = resourcesOf(statementsWith(statements, "s3:GetObject"));
    const listResources = resourcesOf(statementsWith(statements, "s3:ListBucket"));
    const snapshots = JSON.stringify({ "Fn::Join": ["", [bucketArn, "/catalogue-snapshots/*"]] });

    // Assess
    // Besides documents, it only reads level snapshots (the counters' seed, issue 27).
    expect(new Set(objectResources.map((r) => JSON.stringify(r)).filter((r) => r !== snapshots))).toEqual(
      new Set([JSON.stringify({ "Fn::Join": ["", [bucketArn, "/tenants/*"]] })]),
    );
    expect(readResources.map((r) => JSON.stringify(r))).toContain(snapshots);
    expect(resourcesOf(statementsWith(statements, "s3:PutObject")).map((r) => JSON.stringify(r))).not.toContain(snapshots);
    expect(listResources).toEqual([bucketArn]);
  });

  it("lets only the functions that can serve a pinned skill read a version by id, and only the documents API list versions", () => {
    // Prepare
    const bucketArn = getAtt(logicalIdOf(synth.stack, synth.stack.documents.bucket), "Arn");
    const documentsArn = JSON.stringify({ "Fn::Join": ["", [bucketArn, "/tenants/*"]] });
    const grantedTo = (action: string): FunctionName[] =>
      FUNCTION_NAMES.filter((name) => statementsWith(statementsOf(synth, name), action).length > 0);

    // Act
    const versionReaders = grantedTo("s3:GetObjectVersion");
    const versionListers = grantedTo("s3:ListBucketVersions");
    const readResources = versionReaders.flatMap((name) => resourcesOf(statementsWith(statementsOf(synth, name), "s3:GetObjectVersion")));
    const listResources = resourcesOf(statementsWith(statementsOf(synth, "http-documents"), "s3:ListBucketVersions"));

    // Assess
    // Pins are resolved wherever a skill is resolved in a process's scope: spawn and preview, tools, MCP, the lane's turns.
    expect([...versionReaders].sort()).toEqual(["http-documents", "http-mcp", "http-processes", "http-tools", "lane-worker"]);
    expect(versionListers).toEqual(["http-documents"]);
    expect(new Set(readResources.map((r) => JSON.stringify(r)))).toEqual(new Set([documentsArn]));
    expect(listResources).toEqual([bucketArn]);
    for (const name of ["authorizer", "http-skills", "ws-default", "http-steer", "s3-events"] as const) {
      expect(actionsOf(statementsOf(synth, name)).filter((action) => action.includes("Version"))).toEqual([]);
    }
  });

  it("limits table access to the one table and lane sends to the lane queue", () => {
    // Prepare
    const { stack } = synth;
    const tableArn = getAtt(logicalIdOf(stack, stack.table.table), "Arn");
    const laneArn = getAtt(logicalIdOf(stack, stack.lane.queue), "Arn");
    const statements = statementsOf(synth, "http-steer");

    // Act
    const tableResources = resourcesOf(statements.filter((s) => actionsOf([s]).every((a) => a.startsWith("dynamodb:"))));
    const sendResources = resourcesOf(statementsWith(statements, "sqs:SendMessage"));

    // Assess
    expect(tableResources).toEqual([tableArn]);
    expect(sendResources).toEqual([laneArn]);
  });

  it("lets the lane worker send to the lane (spawn) and park in the DLQ, and to nothing else", () => {
    // Prepare
    const { stack } = synth;
    const laneArn = getAtt(logicalIdOf(stack, stack.lane.queue), "Arn");
    const dlqArn = getAtt(logicalIdOf(stack, stack.lane.deadLetterQueue), "Arn");

    // Act
    const sendResources = resourcesOf(statementsWith(statementsOf(synth, "lane-worker"), "sqs:SendMessage"));
    const dlqSenders = FUNCTION_NAMES.filter((name) =>
      resourcesOf(statementsWith(statementsOf(synth, name), "sqs:SendMessage")).some((r) => JSON.stringify(r) === JSON.stringify(dlqArn)),
    );

    // Assess
    expect(sendResources).toEqual(expect.arrayContaining([laneArn, dlqArn]));
    expect(sendResources).toHaveLength(2);
    expect(dlqSenders).toEqual(["lane-worker"]);
  });

  it("limits ManageConnections to this WebSocket API's stage", () => {
    // Prepare
    const apiId = logicalIdOf(synth.stack, synth.stack.webSocketApi.api);

    // Act
    const resources = ["ws-default", "lane-worker"].map((name) =>
      JSON.stringify(resourcesOf(statementsWith(statementsOf(synth, name as FunctionName), "execute-api:ManageConnections"))),
    );

    // Assess
    for (const resource of resources) {
      expect(resource).toContain(`{"Ref":"${apiId}"}`);
      expect(resource).toContain('"/live/*/@connections/*"');
    }
  });

  it("lets only the authorizer read the JWT secret, and only that secret", () => {
    // Prepare
    const secretRef = { Ref: logicalIdOf(synth.stack, synth.stack.jwtKeys.secret!) };

    // Act
    const readers = FUNCTION_NAMES.filter((name) => statementsWith(statementsOf(synth, name), "secretsmanager:GetSecretValue").length > 0);

    // Assess
    expect(readers).toEqual(["authorizer"]);
    expect(resourcesOf(statementsWith(statementsOf(synth, "authorizer"), "secretsmanager:GetSecretValue"))).toEqual([secretRef]);
  });
});

describe("JWT key configuration", () => {
  it("generates an HS256 secret when neither a secret nor a JWKS URL is given", () => {
    // Prepare
    const { template } = synth;

    // Act
    const secrets = template.findResources("AWS::SecretsManager::Secret");

    // Assess
    expect(Object.values(secrets)).toHaveLength(1);
    expect(Object.values(secrets)[0]).toMatchObject({
      Properties: { GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true } },
    });
  });

  it("uses an existing secret by ARN without creating one", () => {
    // Prepare
    const arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:skills-jwt-AbCdEf";

    // Act
    const custom = synthesizeSkillsStack({ jwtSecretArn: arn, jwtIssuer: "https://issuer.example", jwtAudience: "skills" });

    // Assess
    expect(Object.keys(custom.template.findResources("AWS::SecretsManager::Secret"))).toHaveLength(0);
    expect(resourcesOf(statementsWith(statementsOf(custom, "authorizer"), "secretsmanager:GetSecretValue"))).toEqual([arn]);
    custom.template.hasResourceProperties("AWS::Lambda::Function", {
      Environment: {
        Variables: { SKILLS_JWT_SECRET_ARN: arn, SKILLS_JWT_ISSUER: "https://issuer.example", SKILLS_JWT_AUDIENCE: "skills" },
      },
    });
  });

  it("with only a JWKS URL, creates no secret and grants no secret access", () => {
    // Prepare
    const jwksUrl = "https://login.example/.well-known/jwks.json";

    // Act
    const custom = synthesizeSkillsStack({ jwksUrl });

    // Assess
    expect(Object.keys(custom.template.findResources("AWS::SecretsManager::Secret"))).toHaveLength(0);
    expect(actionsOf(statementsOf(custom, "authorizer"))).toEqual([...LOGS, ...XRAY].sort());
    custom.template.hasResourceProperties("AWS::Lambda::Function", { Environment: { Variables: { SKILLS_JWT_JWKS_URL: jwksUrl } } });
  });

  it("refuses a JWKS URL that is not https", () => {
    // Prepare
    const jwksUrl = "http://login.example/jwks.json";

    // Act
    const synthesize = (): unknown => synthesizeSkillsStack({ jwksUrl });

    // Assess
    expect(synthesize).toThrow(/https/);
  });
});

describe("LLM endpoint configuration", () => {
  it("is absent by default: no function learns an LLM setting", () => {
    // Prepare
    const { template } = synth;

    // Act
    const withLlm = template.findResources("AWS::Lambda::Function", {
      Properties: { Environment: { Variables: { SKILLS_LLM_URL: Match.anyValue() } } },
    });

    // Assess
    expect(Object.keys(withLlm)).toEqual([]);
  });

  it("is given to the lane worker only, with read access to its API key secret through the extension", () => {
    // Prepare
    const keyArn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:llm-key-AbCdEf";

    // Act
    const custom = synthesizeSkillsStack({
      llmUrl: "https://llm.example/v1",
      llmModel: "guard",
      llmApiKeySecretArn: keyArn,
      llmTimeoutMs: 5000,
    });

    // Assess
    const withLlm = Object.keys(
      custom.template.findResources("AWS::Lambda::Function", {
        Properties: { Environment: { Variables: { SKILLS_LLM_URL: Match.anyValue() } } },
      }),
    );
    expect(withLlm).toEqual([functionLogicalId(custom, "lane-worker")]);
    const laneWorker = custom.resources[functionLogicalId(custom, "lane-worker")]!.Properties!;
    expect((laneWorker.Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({
      SKILLS_LLM_URL: "https://llm.example/v1",
      SKILLS_LLM_MODEL: "guard",
      SKILLS_LLM_API_KEY_SECRET_ARN: keyArn,
      SKILLS_LLM_TIMEOUT_MS: "5000",
    });
    expect(laneWorker.Layers).toBeDefined();
    expect(resourcesOf(statementsWith(statementsOf(custom, "lane-worker"), "secretsmanager:GetSecretValue"))).toEqual([keyArn]);
  });

  it("refuses an LLM URL without a model", () => {
    // Prepare
    const props = { llmUrl: "https://llm.example/v1" };

    // Act
    const synthesize = (): unknown => synthesizeSkillsStack(props);

    // Assess
    expect(synthesize).toThrow(/llmModel/);
  });
});
