import type { IGrantable } from "aws-cdk-lib/aws-iam";

/**
 * What a resource construct's `grant…` helpers act on: something that can receive IAM grants
 * and environment variables (every SkillsFunction). Granting access and telling the function
 * where the resource is happen together, so a handler never sees a name it may not use.
 */
export interface ResourceUser extends IGrantable {
  addEnvironment(key: string, value: string): unknown;
}
