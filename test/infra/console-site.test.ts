import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Match } from "aws-cdk-lib/assertions";
import { describe, expect, it } from "vitest";
import { getAtt, logicalIdOf, synthesizeSkillsStack } from "./synthesize-stack.js";

const synth = synthesizeSkillsStack();

describe("web console site", () => {
  it("keeps the console's bucket private and encrypted, readable only by its CloudFront distribution", () => {
    // Prepare
    const bucketId = logicalIdOf(synth.stack, synth.stack.consoleSite.bucket);
    const distributionId = logicalIdOf(synth.stack, synth.stack.consoleSite.distribution);

    // Act
    const bucket = synth.resources[bucketId];
    const policies = synth.template.findResources("AWS::S3::BucketPolicy", { Properties: { Bucket: { Ref: bucketId } } });
    const statements = Object.values(policies).flatMap(
      (policy) => (policy.Properties as { PolicyDocument: { Statement: Record<string, unknown>[] } }).PolicyDocument.Statement,
    );

    // Assess
    expect(bucket?.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }] },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: "Allow",
        Principal: { Service: "cloudfront.amazonaws.com" },
        Action: "s3:GetObject",
        Condition: {
          StringEquals: {
            "AWS:SourceArn": expect.objectContaining({
              "Fn::Join": expect.arrayContaining([expect.arrayContaining([{ Ref: distributionId }])]),
            }),
          },
        },
      }),
    );
    expect(statements).toContainEqual(expect.objectContaining({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }));
  });

  it("serves it over HTTPS only through origin access control, with a viewer function for /console/ and security headers", () => {
    // Act
    const distributions = synth.template.findResources("AWS::CloudFront::Distribution");
    const controls = synth.template.findResources("AWS::CloudFront::OriginAccessControl");
    const functions = synth.template.findResources("AWS::CloudFront::Function");

    // Assess
    expect(Object.keys(distributions)).toHaveLength(1);
    expect(Object.keys(controls)).toHaveLength(1);
    synth.template.hasResourceProperties("AWS::CloudFront::Distribution", {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          ViewerProtocolPolicy: "redirect-to-https",
          AllowedMethods: ["GET", "HEAD"],
          FunctionAssociations: [Match.objectLike({ EventType: "viewer-request" })],
          ResponseHeadersPolicyId: Match.anyValue(),
        }),
        Origins: [Match.objectLike({ OriginAccessControlId: Match.anyValue() })],
      }),
    });
    const code = String((Object.values(functions)[0]?.Properties as { FunctionCode?: unknown } | undefined)?.FunctionCode);
    expect(code).toContain('uri + "index.html"');
  });

  it("lets the console's origin call the HTTP API (CORS preflight answered by API Gateway)", () => {
    // Prepare
    const distributionId = logicalIdOf(synth.stack, synth.stack.consoleSite.distribution);

    // Act
    const apis = synth.template.findResources("AWS::ApiGatewayV2::Api", { Properties: { ProtocolType: "HTTP" } });
    const cors = (Object.values(apis)[0]?.Properties as { CorsConfiguration?: Record<string, unknown> } | undefined)?.CorsConfiguration;

    // Assess
    expect(cors).toMatchObject({
      AllowOrigins: [{ "Fn::Join": ["", ["https://", getAtt(distributionId, "DomainName")]] }],
      AllowHeaders: expect.arrayContaining(["authorization", "content-type", "prefer"]),
      ExposeHeaders: expect.arrayContaining(["etag"]),
    });
  });

  it("deploys built assets under console/ with a config.json naming both APIs, and invalidates the files that change in place", () => {
    // Prepare
    const dist = mkdtempSync(join(tmpdir(), "console-dist-"));
    writeFileSync(join(dist, "index.html"), "<!doctype html><title>console</title>");

    // Act
    const deployed = synthesizeSkillsStack({ consoleAssetsDir: dist });
    const deployments = deployed.template.findResources("Custom::CDKBucketDeployment");
    const properties = Object.values(deployments)[0]?.Properties as Record<string, unknown> | undefined;

    // Assess
    expect(Object.keys(deployments)).toHaveLength(1);
    expect(properties).toMatchObject({
      DestinationBucketKeyPrefix: "console/",
      DistributionPaths: ["/console/index.html", "/console/config.json"],
    });
    // config.json's values are deploy-time tokens: markers resolved to both APIs' endpoints.
    const markers = JSON.stringify(properties?.["SourceMarkers"]);
    expect(markers).toContain(logicalIdOf(deployed.stack, deployed.stack.httpApi.api));
    expect(markers).toContain(logicalIdOf(deployed.stack, deployed.stack.webSocketApi.api));
    expect(Object.keys(synth.template.findResources("Custom::CDKBucketDeployment"))).toHaveLength(0);
  });

  it("answers with a strict Content-Security-Policy and frame-ancestors 'none' through its own response headers policy (issue 28)", () => {
    // Prepare
    const distributionId = logicalIdOf(synth.stack, synth.stack.consoleSite.distribution);

    // Act
    const policies = synth.template.findResources("AWS::CloudFront::ResponseHeadersPolicy");
    const [policyId, policy] = Object.entries(policies)[0] ?? [];
    const security = (
      policy?.Properties as { ResponseHeadersPolicyConfig: { SecurityHeadersConfig: Record<string, Record<string, unknown>> } } | undefined
    )?.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = JSON.stringify(security?.ContentSecurityPolicy?.ContentSecurityPolicy);

    // Assess
    expect(Object.keys(policies)).toHaveLength(1);
    synth.template.hasResourceProperties("AWS::CloudFront::Distribution", {
      DistributionConfig: Match.objectLike({ DefaultCacheBehavior: Match.objectLike({ ResponseHeadersPolicyId: { Ref: policyId } }) }),
    });
    expect(distributionId).toBeDefined();
    expect(security?.ContentSecurityPolicy?.Override).toBe(true);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).toContain("https://*.execute-api.");
    expect(csp).toContain("wss://*.execute-api.");
    expect(security?.FrameOptions).toEqual({ FrameOption: "DENY", Override: true });
    expect(security?.ContentTypeOptions).toEqual({ Override: true });
  });
});
