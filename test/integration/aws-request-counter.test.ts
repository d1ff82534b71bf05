import { DescribeTableCommand, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { ListBucketsCommand } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { AwsRequestCounter } from "../support/aws-request-counter.js";
import { testDynamoDbClient, testS3Client } from "../support/aws-clients.js";

describe("AwsRequestCounter", () => {
  it("counts every request per service and operation, failed ones included", async () => {
    // Prepare
    const counter = new AwsRequestCounter();
    const dynamodb = counter.instrument(testDynamoDbClient());
    const s3 = counter.instrument(testS3Client());

    // Act
    await dynamodb.send(new ListTablesCommand({}));
    await dynamodb.send(new ListTablesCommand({}));
    await s3.send(new ListBucketsCommand({}));
    await dynamodb.send(new DescribeTableCommand({ TableName: "no-such-table" })).catch(() => undefined);

    // Assess
    expect(counter.snapshot()).toEqual({ "DynamoDB.DescribeTable": 1, "DynamoDB.ListTables": 2, "S3.ListBuckets": 1 });
    expect(counter.total("DynamoDB")).toBe(3);
    expect(counter.total()).toBe(4);
    counter.reset();
    expect(counter.total()).toBe(0);
  });
});
