import js from "@eslint/js";
import tseslint from "typescript-eslint";
import vitest from "@vitest/eslint-plugin";

export default tseslint.config(
  { ignores: ["node_modules/**", "cdk.out/**", "dist/**", "bench/results.json", "shared/templates/vendor/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    // Domain code reaches AWS only through adapters named *-s3-*, *-dynamodb-*, *-sqs-* (or aws-*).
    files: ["shared/**/*.ts"],
    ignores: ["shared/**/s3-*.ts", "shared/**/dynamodb-*.ts", "shared/**/sqs-*.ts", "shared/**/aws-*.ts", "shared/**/apigateway-*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["@aws-sdk/*"], message: "Only adapter files import an AWS SDK." }] }],
    },
  },
  {
    files: ["test/**/*.ts"],
    plugins: { vitest },
    rules: {
      "vitest/no-disabled-tests": "error",
      "vitest/no-focused-tests": "error",
      "vitest/expect-expect": ["error", { assertFunctionNames: ["expect", "expect*", "assert*"] }],
    },
  },
);
