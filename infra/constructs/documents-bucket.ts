import { Duration, RemovalPolicy } from "aws-cdk-lib";
import { Grant } from "aws-cdk-lib/aws-iam";
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type CfnBucket } from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import { FUNCTION_ENVIRONMENT } from "../function-environment.js";
import type { ResourceUser } from "./resource-user.js";

interface DocumentsBucketProps {
  /**
   * Send object events to the account's default EventBridge bus, so a rule can react to writes
   * that bypass the documents API (catalogue version bumps). Free until a rule consumes them.
   * @default true
   */
  publishEvents?: boolean;
  /** Superseded versions are kept this long (undo for editors), then expire. @default 90 days */
  noncurrentVersionRetention?: Duration;
}

/**
 * The skill documents of every tenant (`tenants/{tenant}/projects/{project}/…`, DESIGN.md "Data").
 * Versioned because an overwritten SKILL.md is an editor's work; retained when the stack goes.
 */
export class DocumentsBucket extends Construct {
  /** Every document key starts here; object grants stop at this prefix. */
  static readonly KEY_PREFIX = "tenants/";

  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: DocumentsBucketProps = {}) {
    super(scope, id);
    this.bucket = new Bucket(this, "Bucket", {
      versioned: true,
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        {
          noncurrentVersionExpiration: props.noncurrentVersionRetention ?? Duration.days(90),
          abortIncompleteMultipartUploadAfter: Duration.days(7),
        },
      ],
    });
    if (props.publishEvents ?? true) {
      // Set on the L1 resource: the L2 `eventBridgeEnabled` deploys a notifications custom
      // resource whose role needs s3:PutBucketNotification on "*".
      const cfnBucket = this.bucket.node.defaultChild as CfnBucket;
      cfnBucket.notificationConfiguration = { eventBridgeConfiguration: { eventBridgeEnabled: true } };
    }
  }

  /** GetObject on documents, ListBucket on the bucket (without it S3 answers a missing key with 403, not 404). */
  grantRead(user: ResourceUser): Grant {
    this.tellBucketName(user);
    Grant.addToPrincipal({ grantee: user, actions: ["s3:ListBucket"], resourceArns: [this.bucket.bucketArn] });
    return Grant.addToPrincipal({ grantee: user, actions: ["s3:GetObject"], resourceArns: [this.documentsArn()] });
  }

  /** Read plus PutObject and DeleteObject on documents: the editor API only. */
  grantReadWrite(user: ResourceUser): Grant {
    this.grantRead(user);
    return Grant.addToPrincipal({ grantee: user, actions: ["s3:PutObject", "s3:DeleteObject"], resourceArns: [this.documentsArn()] });
  }

  /**
   * s3:GetObjectVersion on documents: GetObject and HeadObject with a `VersionId` need it on top
   * of s3:GetObject. For every function that can serve a recipe's pinned skill version (issue 17).
   */
  grantReadVersion(user: ResourceUser): Grant {
    this.grantRead(user);
    return Grant.addToPrincipal({ grantee: user, actions: ["s3:GetObjectVersion"], resourceArns: [this.documentsArn()] });
  }

  /**
   * One version plus s3:ListBucketVersions on the bucket (ListObjectVersions): the versions API
   * (`?versions`, `?versionId=`, `:restore`) only. Pins are read by id and never list.
   */
  grantReadHistory(user: ResourceUser): Grant {
    this.grantReadVersion(user);
    return Grant.addToPrincipal({ grantee: user, actions: ["s3:ListBucketVersions"], resourceArns: [this.bucket.bucketArn] });
  }

  /**
   * Level snapshots (issue 27, `catalogue-snapshots/*`, outside the documents): read by a cold
   * catalogue, written (and the replaced one deleted) when it found its snapshot missing or stale.
   * Only for functions that may also move the pointer on the version item (UpdateItem).
   */
  grantLevelSnapshots(user: ResourceUser): Grant {
    return Grant.addToPrincipal({
      grantee: user,
      actions: ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
      resourceArns: [this.bucket.arnForObjects("catalogue-snapshots/*")],
    });
  }

  /** GetObject on level snapshots alone: functions that compose listings but never move the pointer (http-skills, ws-default). */
  grantLevelSnapshotRead(user: ResourceUser): Grant {
    return Grant.addToPrincipal({
      grantee: user,
      actions: ["s3:GetObject"],
      resourceArns: [this.bucket.arnForObjects("catalogue-snapshots/*")],
    });
  }

  private documentsArn(): string {
    return this.bucket.arnForObjects(`${DocumentsBucket.KEY_PREFIX}*`);
  }

  private tellBucketName(user: ResourceUser): void {
    user.addEnvironment(FUNCTION_ENVIRONMENT.bucketName, this.bucket.bucketName);
  }
}
