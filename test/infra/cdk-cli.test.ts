import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../infra/constructs/skills-function.js";

const outdirs: string[] = [];

afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

describe("npx cdk synth", () => {
  it("synthesizes the app from cdk.json offline, with context settings and CloudFormation validation", () => {
    // Prepare
    const outdir = mkdtempSync(join(tmpdir(), "skills-cdk-cli-"));
    outdirs.push(outdir);
    const cdk = join(PROJECT_ROOT, "node_modules/.bin/cdk");
    // No credentials and no network: the app must not need either.
    const env = { ...process.env, SKILLS_SKIP_BUNDLING: "1", AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "", AWS_PROFILE: "" };

    // Act
    const result = spawnSync(
      cdk,
      ["synth", "--quiet", "--no-notices", "-o", outdir, "-c", "stageName=beta", "-c", "stackName=SkillsCliTest"],
      {
        cwd: PROJECT_ROOT,
        env,
        encoding: "utf8",
        timeout: 240_000,
      },
    );

    // Assess
    expect(result.status, result.stderr).toBe(0);
    const template = JSON.parse(readFileSync(join(outdir, "SkillsCliTest.template.json"), "utf8")) as {
      Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
    };
    const stages = Object.values(template.Resources)
      .filter((r) => r.Type === "AWS::ApiGatewayV2::Stage")
      .map((r) => r.Properties.StageName);
    expect(stages.sort()).toEqual(["$default", "beta"]);
    const report = JSON.parse(readFileSync(join(outdir, "validation-report.json"), "utf8")) as {
      pluginReports: { violations?: { severity?: string }[] }[];
    };
    const errors = report.pluginReports.flatMap((r) => r.violations ?? []).filter((v) => v.severity === "error" || v.severity === "fatal");
    expect(errors).toEqual([]);
  });
});
