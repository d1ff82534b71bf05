import { Duration } from "aws-cdk-lib";
import { Alarm, ComparisonOperator, TreatMissingData } from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { Topic, type ITopic } from "aws-cdk-lib/aws-sns";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";

interface ServiceAlarmsProps {
  /** Existing SNS topic that receives alarm and OK notifications; without it the alarms only show in CloudWatch. */
  topicArn?: string;
}

/** The alarms an operator needs: parked lane messages or document events, a stuck lane, and any function error. */
export class ServiceAlarms extends Construct {
  readonly alarms: Alarm[] = [];
  private readonly topic: ITopic | undefined;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps = {}) {
    super(scope, id);
    this.topic = props.topicArn ? Topic.fromTopicArn(this, "Topic", props.topicArn) : undefined;
  }

  /** A message in a DLQ is work that was never applied (a steering request, a catalogue bump): alarm on the first one. */
  watchDeadLetterQueue(name: string, queue: IQueue, what = "lane messages"): Alarm {
    return this.add(
      new Alarm(this, `${name}Depth`, {
        alarmDescription: `${name}: ${what} parked after repeated failures`,
        metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: "Maximum" }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /** An old message at the head of the lane means the worker is not keeping up or is failing a group. */
  watchQueueAge(name: string, queue: IQueue, maxAge: Duration): Alarm {
    return this.add(
      new Alarm(this, `${name}Age`, {
        alarmDescription: `${name}: oldest lane message older than ${maxAge.toSeconds()} s`,
        metric: queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: "Maximum" }),
        threshold: maxAge.toSeconds(),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 5,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /** Handlers answer client errors themselves; an invocation error is always a bug or an outage. */
  watchFunction(name: string, fn: IFunction): Alarm {
    return this.add(
      new Alarm(this, `${name}Errors`, {
        alarmDescription: `${name}: invocation errors`,
        metric: fn.metricErrors({ period: Duration.minutes(5), statistic: "Sum" }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  private add(alarm: Alarm): Alarm {
    if (this.topic) {
      alarm.addAlarmAction(new SnsAction(this.topic));
      alarm.addOkAction(new SnsAction(this.topic));
    }
    this.alarms.push(alarm);
    return alarm;
  }
}
