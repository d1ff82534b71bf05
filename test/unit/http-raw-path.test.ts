import { describe, expect, it } from "vitest";
import { InvalidRequest } from "../../shared/errors.js";
import { assertSafeRawPath, MAX_RAW_PATH_LENGTH } from "../../shared/http/raw-path.js";

const DOCS = "/brain/acme/projects/alpha/documents";

describe("assertSafeRawPath rejects traversal in every encoding", () => {
  it.each([
    ["plain ..", `${DOCS}/../../globex/x`],
    ["plain . segment", `${DOCS}/./x`],
    ["trailing ..", `${DOCS}/a/..`],
    ["%2e%2e", `${DOCS}/%2e%2e/x`],
    ["%2E%2E upper case", `${DOCS}/%2E%2E/x`],
    [".%2e", `${DOCS}/.%2e/x`],
    ["%2e.", `${DOCS}/%2e./x`],
    ["%2e single dot", `${DOCS}/%2e/x`],
    ["double-encoded %252e%252e", `${DOCS}/%252e%252e/x`],
    ["triple-encoded %25252e%25252e", `${DOCS}/%25252e%25252e/x`],
    ["mixed .%252e", `${DOCS}/.%252e/x`],
    ["encoded slash and dots ..%2f", `${DOCS}/..%2fx`],
    ["fully encoded %2e%2e%2f", `${DOCS}/a%2f%2e%2e%2fb`],
    ["backslash", `${DOCS}/a\\b`],
    ["backslash traversal", `${DOCS}/..\\..\\x`],
    ["%5c", `${DOCS}/a%5cb`],
    ["%5C upper case", `${DOCS}/a%5Cb`],
    ["double-encoded %255c", `${DOCS}/a%255cb`],
    ["fullwidth dots", `${DOCS}/\uff0e\uff0e/x`],
    ["encoded fullwidth dots", `${DOCS}/%EF%BC%8E%EF%BC%8E/x`],
    ["fullwidth reverse solidus", `${DOCS}/a\uff3cb`],
    ["..;/ path parameter trick", `${DOCS}/..;/x`],
    ["encoded ..;", `${DOCS}/%2e%2e;jsessionid=1/x`],
    ["overlong UTF-8 dot %c0%ae", `${DOCS}/%c0%ae%c0%ae/x`],
    ["NUL", `${DOCS}/a\u0000b`],
    ["encoded NUL", `${DOCS}/a%00b`],
    ["encoded newline", `${DOCS}/a%0ab`],
    ["double-encoded NUL", `${DOCS}/a%2500b`],
    ["DEL", `${DOCS}/a\u007fb`],
    ["malformed escape", `${DOCS}/a%zzb`],
    ["truncated escape", `${DOCS}/a%2`],
    ["encoded five times", `${DOCS}/%252525252e`],
    ["relative path", "brain/acme"],
    ["empty path", ""],
  ])("%s", (_label, path) => {
    // Act
    const check = () => assertSafeRawPath(path);

    // Assess
    expect(check).toThrow(InvalidRequest);
  });

  it("rejects an overlong path", () => {
    // Prepare
    const path = `${DOCS}/${"a".repeat(MAX_RAW_PATH_LENGTH)}`;

    // Act
    const check = () => assertSafeRawPath(path);

    // Assess
    expect(check).toThrow(/longer than/);
  });

  it("names the rule in the message", () => {
    // Act
    const check = () => assertSafeRawPath(`${DOCS}/%252e%252e/x`);

    // Assess
    expect(check).toThrow("Path must not contain '.' or '..' segments (encoded or not)");
  });
});

describe("assertSafeRawPath lets ordinary paths through", () => {
  it.each([
    "/health",
    "/",
    `${DOCS}/_vance/skills/a.b/SKILL.md`,
    `${DOCS}/_vance/recipes/code-read.yaml`,
    `${DOCS}/.hidden/file`,
    `${DOCS}/a..b/c`,
    `${DOCS}/..a/b.`,
    `${DOCS}/notes/v1.2.3.md`,
    "/brain/acme/projects/_user_mia%40example.com/documents/x.md",
    "/brain/acme/skills/effective/code-review",
    "/brain/acme/processes/p-1/tools/manual_read",
    "/brain/acme/skills/effective/caf%C3%A9",
  ])("%s", (path) => {
    // Act
    const check = () => assertSafeRawPath(path);

    // Assess
    expect(check).not.toThrow();
  });
});
