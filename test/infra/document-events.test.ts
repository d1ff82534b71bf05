import { describe, expect, it } from "vitest";
import { DOCUMENT_EVENT_DELIVERY_RETRIES, DOCUMENT_EVENT_FUNCTION_RETRIES } from "../../infra/constructs/document-events.js";
import { CATALOGUE_KEY_WILDCARD } from "../../infra/document-events.js";
import {
  functionLogicalId,
  getAtt,
  logicalIdOf,
  statementsOf,
  statementsWith,
  synthesizeSkillsStack,
  type TemplateResource,
} from "./synthesize-stack.js";

const synth = synthesizeSkillsStack();
const { stack } = synth;
const dlqId = logicalIdOf(stack, stack.documentEvents.deadLetterQueue);
const ruleId = logicalIdOf(stack, stack.documentEvents.rule);
const functionId = functionLogicalId(synth, "s3-events");
const ofType = (type: string): TemplateResource[] => Object.values(synth.resources).filter((resource) => resource.Type === type);

describe("document events (writes that bypass the documents API)", () => {
  it("route only this bucket's Object Created and Object Deleted events for catalogue keys, through one rule", () => {
    // Prepare
    const bucketId = logicalIdOf(stack, stack.documents.bucket);

    // Act
    const rules = ofType("AWS::Events::Rule");

    // Assess
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Properties!.State).toBe("ENABLED");
    expect(rules[0]!.Properties!.EventBusName).toBeUndefined();
    expect(rules[0]!.Properties!.EventPattern).toEqual({
      source: ["aws.s3"],
      "detail-type": ["Object Created", "Object Deleted"],
      detail: { bucket: { name: [{ Ref: bucketId }] }, object: { key: [{ wildcard: "tenants/*/projects/*/_vance/*" }] } },
    });
    expect(CATALOGUE_KEY_WILDCARD).toBe("tenants/*/projects/*/_vance/*");
  });

  it("invoke the s3-events function, retrying deliveries and parking undeliverable events in a dead-letter queue", () => {
    // Prepare
    const rule = synth.resources[ruleId]!.Properties!;

    // Act
    const targets = rule.Targets as Record<string, unknown>[];

    // Assess
    expect(targets).toHaveLength(1);
    expect(targets[0]).toMatchObject({
      Arn: getAtt(functionId, "Arn"),
      DeadLetterConfig: { Arn: getAtt(dlqId, "Arn") },
      RetryPolicy: { MaximumRetryAttempts: DOCUMENT_EVENT_DELIVERY_RETRIES, MaximumEventAgeInSeconds: 7200 },
    });
  });

  it("let EventBridge invoke the function for this rule only", () => {
    // Prepare
    const permissions = ofType("AWS::Lambda::Permission").filter((p) => p.Properties!.Principal === "events.amazonaws.com");

    // Act
    const properties = permissions.map((p) => p.Properties);

    // Assess
    expect(properties).toEqual([
      {
        Action: "lambda:InvokeFunction",
        FunctionName: getAtt(functionId, "Arn"),
        Principal: "events.amazonaws.com",
        SourceArn: getAtt(ruleId, "Arn"),
      },
    ]);
  });

  it("send an event the function kept failing to the same dead-letter queue after Lambda's retries", () => {
    // Prepare
    const configs = ofType("AWS::Lambda::EventInvokeConfig");

    // Act
    const properties = configs.map((config) => config.Properties);

    // Assess
    expect(properties).toEqual([
      {
        FunctionName: { Ref: functionId },
        Qualifier: "$LATEST",
        MaximumRetryAttempts: DOCUMENT_EVENT_FUNCTION_RETRIES,
        MaximumEventAgeInSeconds: 3600,
        DestinationConfig: { OnFailure: { Destination: getAtt(dlqId, "Arn") } },
      },
    ]);
  });

  it("keep the dead-letter queue standard, encrypted, TLS-only and writable by this rule and the s3-events role only", () => {
    // Prepare
    const queue = synth.resources[dlqId]!.Properties!;
    const policies = ofType("AWS::SQS::QueuePolicy").filter(
      (policy) => JSON.stringify(policy.Properties!.Queues) === JSON.stringify([{ Ref: dlqId }]),
    );

    // Act
    const statements = (policies[0]!.Properties!.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement;
    const senders = ofType("AWS::IAM::Policy").filter((policy) => JSON.stringify(policy).includes(`"${dlqId}"`));

    // Assess
    expect(queue).toEqual({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
    expect(policies).toHaveLength(1);
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
        expect.objectContaining({
          Effect: "Allow",
          Action: "sqs:SendMessage",
          Principal: { Service: "events.amazonaws.com" },
          Condition: { ArnEquals: { "aws:SourceArn": getAtt(ruleId, "Arn") } },
        }),
      ]),
    );
    expect(statements).toHaveLength(2);
    expect(senders).toHaveLength(1);
    expect(resourcesOfSend()).toEqual([getAtt(dlqId, "Arn")]);
  });

  it("give the s3-events function the table's name and its item actions (bump, level counters, name claims) on that table only", () => {
    // Prepare
    const tableArn = getAtt(logicalIdOf(stack, stack.table.table), "Arn");

    // Act
    const statements = statementsOf(synth, "s3-events").filter((statement) =>
      [statement.Action].flat().every((action) => String(action).startsWith("dynamodb:")),
    );

    // Assess
    expect(statements).toHaveLength(1);
    expect([statements[0]!.Action].flat().sort()).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:DeleteItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:UpdateItem",
    ]);
    expect(statements[0]!.Resource).toEqual([tableArn]);
  });
});

function resourcesOfSend(): unknown[] {
  return statementsWith(statementsOf(synth, "s3-events"), "sqs:SendMessage").flatMap((statement) =>
    Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource],
  );
}
