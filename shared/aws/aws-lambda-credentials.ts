import { fromEnv } from "@aws-sdk/credential-provider-env";

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles only (an esbuild alias,
 * infra/constructs/skills-function.ts). Lambda always hands a function its role's credentials in
 * AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, so the default chain's SSO, INI,
 * process, web-identity and metadata providers (and the STS/SSO clients they carry, ~110 KB) are
 * dead weight there. Tests, the CLI and the local stack run unbundled and keep the full chain.
 */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}): ReturnType<typeof fromEnv> => fromEnv(init);
