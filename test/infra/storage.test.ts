import { Match } from "aws-cdk-lib/assertions";
import { describe, expect, it } from "vitest";
import { LANE_WORKER_TIMEOUT } from "../../infra/skills-stack.js";
import { TABLE_PARTITION_KEY, TABLE_SORT_KEY, TABLE_TTL_ATTRIBUTE } from "../../shared/aws/table-schema.js";
import { getAtt, logicalIdOf, synthesizeSkillsStack } from "./synthesize-stack.js";

const synth = synthesizeSkillsStack();

describe("documents bucket", () => {
  it("is versioned, S3-encrypted, closed to the public and retained", () => {
    // Prepare
    const { template } = synth;

    // Act
    // The other bucket is the web console's (console-site.test.ts): unversioned, built assets only.
    const buckets = template.findResources("AWS::S3::Bucket", { Properties: { VersioningConfiguration: { Status: "Enabled" } } });

    // Assess
    expect(Object.keys(buckets)).toHaveLength(1);
    template.hasResource("AWS::S3::Bucket", {
      Properties: {
        VersioningConfiguration: { Status: "Enabled" },
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }] },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: "BucketOwnerEnforced" }] },
        NotificationConfiguration: { EventBridgeConfiguration: { EventBridgeEnabled: true } },
      },
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
    });
  });

  it("denies every request that is not TLS 1.2 or newer", () => {
    // Prepare
    const bucketId = logicalIdOf(synth.stack, synth.stack.documents.bucket);
    const bucketAndObjects = [getAtt(bucketId, "Arn"), { "Fn::Join": ["", [getAtt(bucketId, "Arn"), "/*"]] }];

    // Act
    const policies = synth.template.findResources("AWS::S3::BucketPolicy", { Properties: { Bucket: { Ref: bucketId } } });

    // Assess
    expect(Object.keys(policies)).toHaveLength(1);
    synth.template.hasResourceProperties("AWS::S3::BucketPolicy", {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: "Deny",
            Action: "s3:*",
            Condition: { Bool: { "aws:SecureTransport": "false" } },
            Resource: bucketAndObjects,
          }),
          Match.objectLike({
            Effect: "Deny",
            Action: "s3:*",
            Condition: { NumericLessThan: { "s3:TlsVersion": 1.2 } },
            Resource: bucketAndObjects,
          }),
        ]),
      },
    });
  });

  it("expires superseded versions instead of keeping them forever", () => {
    // Prepare
    const { template } = synth;

    // Act
    const rules = template.findResources("AWS::S3::Bucket", {
      Properties: {
        LifecycleConfiguration: {
          Rules: Match.arrayWith([Match.objectLike({ NoncurrentVersionExpiration: { NoncurrentDays: 90 }, Status: "Enabled" })]),
        },
      },
    });

    // Assess
    expect(Object.keys(rules)).toHaveLength(1);
  });
});

describe("process table", () => {
  it("uses the shared key schema, on-demand billing, TTL and point-in-time recovery, and is retained", () => {
    // Prepare
    const { template } = synth;

    // Act
    const tables = template.findResources("AWS::DynamoDB::Table");

    // Assess
    expect(Object.keys(tables)).toHaveLength(1);
    template.hasResource("AWS::DynamoDB::Table", {
      Properties: {
        KeySchema: [
          { AttributeName: TABLE_PARTITION_KEY, KeyType: "HASH" },
          { AttributeName: TABLE_SORT_KEY, KeyType: "RANGE" },
        ],
        AttributeDefinitions: [
          { AttributeName: TABLE_PARTITION_KEY, AttributeType: "S" },
          { AttributeName: TABLE_SORT_KEY, AttributeType: "S" },
        ],
        BillingMode: "PAY_PER_REQUEST",
        TimeToLiveSpecification: { AttributeName: TABLE_TTL_ATTRIBUTE, Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        GlobalSecondaryIndexes: Match.absent(),
      },
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
    });
    expect(TABLE_TTL_ATTRIBUTE).toBe("expiresAt");
  });
});

describe("lane queue", () => {
  const laneId = logicalIdOf(synth.stack, synth.stack.lane.queue);
  const dlqId = logicalIdOf(synth.stack, synth.stack.lane.deadLetterQueue);
  const queueProperties = (id: string): Record<string, unknown> => synth.resources[id]!.Properties!;

  it("is a FIFO queue without content-based de-duplication", () => {
    // Prepare
    const lane = queueProperties(laneId);

    // Act
    const name = lane.QueueName as string;

    // Assess
    expect(name).toMatch(/^SkillsService-lane\.fifo$/);
    expect(lane).toMatchObject({ FifoQueue: true, ContentBasedDeduplication: false, SqsManagedSseEnabled: true });
  });

  it("parks messages in a FIFO dead-letter queue after five deliveries", () => {
    // Prepare
    const lane = queueProperties(laneId);
    const dlq = queueProperties(dlqId);

    // Act
    const redrive = lane.RedrivePolicy;

    // Assess
    expect(redrive).toEqual({ deadLetterTargetArn: getAtt(dlqId, "Arn"), maxReceiveCount: 5 });
    expect(dlq).toMatchObject({ FifoQueue: true, ContentBasedDeduplication: false, MessageRetentionPeriod: 14 * 24 * 3600 });
    expect(dlq.QueueName).toMatch(/\.fifo$/);
  });

  it("hides a received message for at least six times the lane worker's timeout", () => {
    // Prepare
    const worker = synth.resources[logicalIdOf(synth.stack, synth.stack.functions["lane-worker"])]!.Properties!;

    // Act
    const visibility = queueProperties(laneId).VisibilityTimeout as number;

    // Assess
    expect(worker.Timeout).toBe(LANE_WORKER_TIMEOUT.toSeconds());
    expect(visibility).toBeGreaterThanOrEqual(6 * (worker.Timeout as number));
  });

  it("refuses TLS-less access to both queues", () => {
    // Prepare
    const { template } = synth;

    // Act
    const policies = template.findResources("AWS::SQS::QueuePolicy", {
      Properties: {
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } })]),
        },
      },
    });

    // Assess
    const guarded = Object.values(policies).flatMap((policy) => (policy as { Properties: { Queues: unknown[] } }).Properties.Queues);
    expect(guarded).toEqual(expect.arrayContaining([{ Ref: laneId }, { Ref: dlqId }]));
  });
});
