import { App, type CfnElement } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import type { CfnRole } from "aws-cdk-lib/aws-iam";
import type { IConstruct } from "constructs";
import type { FunctionName } from "../../infra/api-routes.js";
import { SkillsStack, type SkillsStackProps } from "../../infra/skills-stack.js";

export interface SynthesizedStack {
  stack: SkillsStack;
  template: Template;
  resources: Record<string, TemplateResource>;
}

export interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface PolicyStatement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

/**
 * Synthesizes the stack without esbuild and without CDK's built-in CloudFormation schema check
 * (both slow; bundling is covered by bundling.test.ts, the schema check by the CLI test).
 */
export function synthesizeSkillsStack(props: SkillsStackProps = {}): SynthesizedStack {
  const app = new App({ builtinCloudFormationValidation: false, context: { "aws:cdk:bundling-stacks": [] } });
  const stack = new SkillsStack(app, "SkillsService", props);
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<string, TemplateResource>;
  return { stack, template, resources };
}

export const logicalIdOf = (stack: SkillsStack, construct: IConstruct): string =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

export const functionLogicalId = (synth: SynthesizedStack, name: FunctionName): string =>
  logicalIdOf(synth.stack, synth.stack.functions[name]);

/** Every statement of every inline policy attached to the function's role. */
export function statementsOf(synth: SynthesizedStack, name: FunctionName): PolicyStatement[] {
  const role = synth.stack.functions[name].role!.node.defaultChild as CfnRole;
  const roleId = synth.stack.getLogicalId(role);
  return Object.values(synth.resources)
    .filter((resource) => resource.Type === "AWS::IAM::Policy")
    .filter((policy) => (policy.Properties?.Roles as unknown[]).some((ref) => JSON.stringify(ref) === JSON.stringify({ Ref: roleId })))
    .flatMap((policy) => (policy.Properties?.PolicyDocument as { Statement: PolicyStatement[] }).Statement);
}

export const actionsOf = (statements: PolicyStatement[]): string[] =>
  [...new Set(statements.flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action])))].sort();

/** The statements granting `action`. */
export const statementsWith = (statements: PolicyStatement[], action: string): PolicyStatement[] =>
  statements.filter((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]).includes(action));

export const getAtt = (logicalId: string, attribute: string): unknown => ({ "Fn::GetAtt": [logicalId, attribute] });
