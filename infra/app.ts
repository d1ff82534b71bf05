import { App } from "aws-cdk-lib";
import { readConfig } from "../shared/config/config.js";
import { SkillsStack } from "./skills-stack.js";
import { readStackContext } from "./stack-context.js";

/** `SKILLS_SKIP_BUNDLING=1 npx cdk synth`: the template only, without running esbuild (checks, diffs). */
const { skipBundling } = readConfig(process.env, ["skipBundling"]);

// Environment-agnostic on purpose: synth needs no credentials, lookups or network.
const app = new App();
// After construction: the CLI's own context (bundle every stack) is applied by the App constructor.
if (skipBundling) app.node.setContext("aws:cdk:bundling-stacks", []);
const { stackName, props } = readStackContext(app.node);
new SkillsStack(app, stackName, { ...props, description: "Skills service: skill documents, process lanes, HTTP and WebSocket APIs" });
app.synth();
