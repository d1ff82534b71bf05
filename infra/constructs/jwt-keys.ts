import { Grant } from "aws-cdk-lib/aws-iam";
import { Secret, type ISecret } from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";
import { FUNCTION_ENVIRONMENT } from "../function-environment.js";
import { InfraConfigurationError } from "../infra-errors.js";
import type { ResourceUser } from "./resource-user.js";

interface JwtKeysProps {
  /** Complete ARN of an existing HS256 secret (the secret string is the key). */
  secretArn?: string;
  /** HTTPS URL of a JWKS for RS256 tokens. Without a secret ARN, RS256 is then the only scheme. */
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
}

/**
 * What verifies caller tokens: an HS256 secret in Secrets Manager (imported, or generated here
 * when neither a secret nor a JWKS URL is given) and/or a JWKS URL for RS256, plus the expected
 * issuer and audience. Only the authorizer is granted to read it.
 */
export class JwtKeys extends Construct {
  readonly secret: ISecret | undefined;
  readonly jwksUrl: string | undefined;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: JwtKeysProps = {},
  ) {
    super(scope, id);
    if (props.jwksUrl !== undefined && !/^https:\/\/[^\s]+$/.test(props.jwksUrl)) {
      throw new InfraConfigurationError(`jwksUrl must be an https URL, got '${props.jwksUrl}'`);
    }
    this.jwksUrl = props.jwksUrl;
    if (props.secretArn) {
      this.secret = Secret.fromSecretCompleteArn(this, "Secret", props.secretArn);
    } else if (!props.jwksUrl) {
      this.secret = new Secret(this, "Secret", {
        description: "HS256 key that signs Skills service caller tokens",
        generateSecretString: { passwordLength: 64, excludePunctuation: true },
      });
    }
  }

  /** secretsmanager:GetSecretValue on this secret only, and the verification settings as environment. */
  grantVerify(user: ResourceUser): Grant | undefined {
    const settings: [string, string | undefined][] = [
      [FUNCTION_ENVIRONMENT.jwksUrl, this.jwksUrl],
      [FUNCTION_ENVIRONMENT.jwtIssuer, this.props.issuer],
      [FUNCTION_ENVIRONMENT.jwtAudience, this.props.audience],
    ];
    for (const [name, value] of settings) if (value) user.addEnvironment(name, value);
    if (!this.secret) return undefined;
    user.addEnvironment(FUNCTION_ENVIRONMENT.jwtSecretArn, this.secret.secretArn);
    return Grant.addToPrincipal({ grantee: user, actions: ["secretsmanager:GetSecretValue"], resourceArns: [this.secret.secretArn] });
  }
}
