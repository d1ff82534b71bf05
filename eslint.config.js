import js from "@eslint/js";
import tseslint from "typescript-eslint";
import vitest from "@vitest/eslint-plugin";

// `import { z } from "zod"` keeps zod's whole namespace, every locale included (~350 KB per Lambda bundle).
const ZOD_NAMED_Z = {
  selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
  message: 'Import zod as `import * as z from "zod"` so bundles can drop what they do not use.',
};

export default tseslint.config(
  { ignores: ["node_modules/**", "cdk.out/**", "dist/**", "console/dist/**", "bench/results.json", "shared/templates/vendor/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-restricted-syntax": ["error", ZOD_NAMED_Z],
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
    // Guest code: evaluated inside QuickJS from the exported function's source text (see
    // guest-bootstrap.js), so nothing else in the file reaches the guest, and QuickJS offers
    // no globals beyond the ECMAScript built-ins (which is all no-undef allows here).
    files: ["shared/sandbox/guest/**/*.js"],
    rules: {
      "no-undef": "error",
      "no-restricted-syntax": [
        "error",
        {
          selector: "Program > :not(ExportNamedDeclaration[declaration.type='FunctionDeclaration'])",
          message: "Guest code ships as the source text of one exported function: no imports or other top-level code.",
        },
      ],
    },
  },
  {
    // CommonJS tool configuration (dependency-cruiser reads .cjs only).
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly" } },
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
