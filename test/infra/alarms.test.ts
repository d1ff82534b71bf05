import { describe, expect, it } from "vitest";
import { FUNCTION_NAMES } from "../../infra/api-routes.js";
import { functionLogicalId, getAtt, logicalIdOf, synthesizeSkillsStack, type SynthesizedStack } from "./synthesize-stack.js";

const synth = synthesizeSkillsStack();

const alarmsOf = (s: SynthesizedStack): Record<string, unknown>[] =>
  Object.values(s.resources)
    .filter((resource) => resource.Type === "AWS::CloudWatch::Alarm")
    .map((alarm) => alarm.Properties!);

describe("alarms", () => {
  it("fire on the first message in the lane's or the document events' dead-letter queue", () => {
    // Prepare
    const dlqIds = [synth.stack.lane.deadLetterQueue, synth.stack.documentEvents.deadLetterQueue].map((queue) =>
      logicalIdOf(synth.stack, queue),
    );

    // Act
    const alarms = alarmsOf(synth).filter((alarm) => alarm.MetricName === "ApproximateNumberOfMessagesVisible");
    const watching = (dlqId: string) =>
      alarms.filter(
        (alarm) => JSON.stringify(alarm.Dimensions) === JSON.stringify([{ Name: "QueueName", Value: getAtt(dlqId, "QueueName") }]),
      );

    // Assess
    expect(alarms).toHaveLength(2);
    for (const dlqId of dlqIds) {
      expect(watching(dlqId)).toHaveLength(1);
      expect(watching(dlqId)[0]).toMatchObject({
        Namespace: "AWS/SQS",
        ComparisonOperator: "GreaterThanThreshold",
        Threshold: 0,
        EvaluationPeriods: 1,
        TreatMissingData: "notBreaching",
      });
    }
    expect(watching(dlqIds[1]!)[0]!.AlarmDescription).toMatch(/document events not applied to the catalogue/);
  });

  it("fire when the lane's oldest message waits too long", () => {
    // Prepare
    const laneId = logicalIdOf(synth.stack, synth.stack.lane.queue);

    // Act
    const alarms = alarmsOf(synth).filter((alarm) => alarm.MetricName === "ApproximateAgeOfOldestMessage");

    // Assess
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({
      Namespace: "AWS/SQS",
      Dimensions: [{ Name: "QueueName", Value: getAtt(laneId, "QueueName") }],
      Threshold: 300,
    });
  });

  it.each(FUNCTION_NAMES)("fire on any invocation error of %s", (name) => {
    // Prepare
    const fnId = functionLogicalId(synth, name);

    // Act
    const alarms = alarmsOf(synth).filter(
      (alarm) =>
        alarm.MetricName === "Errors" &&
        JSON.stringify(alarm.Dimensions) === JSON.stringify([{ Name: "FunctionName", Value: { Ref: fnId } }]),
    );

    // Assess
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({
      Namespace: "AWS/Lambda",
      Statistic: "Sum",
      ComparisonOperator: "GreaterThanThreshold",
      Threshold: 0,
    });
  });

  it("notify nobody by default and the given SNS topic when configured", () => {
    // Prepare
    const topicArn = "arn:aws:sns:eu-west-1:123456789012:skills-alarms";

    // Act
    const withTopic = alarmsOf(synthesizeSkillsStack({ alarmTopicArn: topicArn }));

    // Assess
    expect(alarmsOf(synth).every((alarm) => alarm.AlarmActions === undefined)).toBe(true);
    expect(withTopic).toHaveLength(FUNCTION_NAMES.length + 3);
    for (const alarm of withTopic) {
      expect(alarm.AlarmActions).toEqual([topicArn]);
      expect(alarm.OKActions).toEqual([topicArn]);
    }
  });
});
