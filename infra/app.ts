import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
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
// The console is deployed when it has been built (`npm run build:console`); otherwise its site stays empty.
const consoleDist = fileURLToPath(new URL("../console/dist/", import.meta.url));
const consoleAssetsDir = existsSync(`${consoleDist}index.html`) ? consoleDist : undefined;
if (!consoleAssetsDir) console.warn("console/dist is not built: the console's site is deployed empty (run `npm run build:console` first).");
new SkillsStack(app, stackName, {
  ...props,
  ...(consoleAssetsDir ? { consoleAssetsDir } : {}),
  description: "Skills service: skill documents, process lanes, HTTP and WebSocket APIs",
});
app.synth();
