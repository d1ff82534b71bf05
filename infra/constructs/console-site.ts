import { Aws, CfnOutput, Duration, RemovalPolicy } from "aws-cdk-lib";
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from "aws-cdk-lib/aws-cloudfront";
import { S3BucketOrigin } from "aws-cdk-lib/aws-cloudfront-origins";
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from "aws-cdk-lib/aws-s3";
import { BucketDeployment, Source } from "aws-cdk-lib/aws-s3-deployment";
import { Construct } from "constructs";
import { consoleContentSecurityPolicy } from "../console-csp.js";

/** Where the console lives on its distribution, as on the local stack. */
export const CONSOLE_PREFIX = "console/";

/** What the console's `config.json` says: the HTTP API's base URL and the WebSocket URL. */
interface ConsoleApiUrls {
  apiUrl: string;
  webSocketUrl: string;
}

// `/console/` and any route without a file name serve the single page; `/` goes to `/console/`.
const ROUTING = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri === "/" || uri === "/console") {
    return { statusCode: 308, statusDescription: "Permanent Redirect", headers: { location: { value: "/console/" } } };
  }
  if (uri.endsWith("/")) request.uri = uri + "index.html";
  return request;
}`;

/**
 * The web console's static bucket (the documents bucket's sibling: private, encrypted, TLS only)
 * behind CloudFront with origin access control. The console calls the HTTP API cross-origin (the
 * API allows this distribution's origin) and reads the API URLs from the deployed `config.json`.
 */
export class ConsoleSite extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  deployment: BucketDeployment | undefined;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new Bucket(this, "Bucket", {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      // Built assets, reproducible from the repository: nothing here is anyone's work to keep.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // The API's hosts cannot be named exactly: the HTTP API's CORS names this distribution, so a
    // policy naming the API would be a dependency circle. Any API Gateway host of this region is.
    const apiHosts = `*.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}`;
    const headers = new ResponseHeadersPolicy(this, "SecurityHeaders", {
      comment: "Skills console: strict CSP, no framing",
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: consoleContentSecurityPolicy([`https://${apiHosts}`, `wss://${apiHosts}`]),
          override: true,
        },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });
    const routing = new CloudFrontFunction(this, "Routing", {
      code: FunctionCode.fromInline(ROUTING),
      runtime: FunctionRuntime.JS_2_0,
      comment: "Skills console: index.html for directory paths",
    });
    this.distribution = new Distribution(this, "Distribution", {
      comment: "Skills web console",
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        functionAssociations: [{ function: routing, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
    });
    new CfnOutput(this, "Url", { value: `https://${this.distribution.distributionDomainName}/${CONSOLE_PREFIX}` });
  }

  /**
   * Uploads the built console (console/dist, `npm run build:console`) and its config.json. Without
   * a directory the site stays empty: synth and tests need no build.
   */
  deploy(assetsDir: string | undefined, urls: ConsoleApiUrls): void {
    if (assetsDir === undefined) return;
    this.deployment = new BucketDeployment(this, "Assets", {
      destinationBucket: this.bucket,
      destinationKeyPrefix: CONSOLE_PREFIX,
      sources: [Source.asset(assetsDir), Source.jsonData("config.json", { apiUrl: urls.apiUrl, webSocketUrl: urls.webSocketUrl })],
      distribution: this.distribution,
      // index.html and config.json change in place; hashed assets never do.
      distributionPaths: [`/${CONSOLE_PREFIX}index.html`, `/${CONSOLE_PREFIX}config.json`],
    });
  }

  /** The console's origin, for the HTTP API's CORS. */
  get origin(): string {
    return `https://${this.distribution.distributionDomainName}`;
  }
}
