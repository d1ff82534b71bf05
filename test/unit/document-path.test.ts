import { describe, expect, it } from "vitest";
import { InvalidRequest } from "../../shared/errors.js";
import { prng } from "../support/seeded-random.js";
import {
  checkDocumentPath,
  documentKey,
  documentKeyPrefix,
  validateDocumentPath,
  validateDocumentPrefix,
  validateLogin,
  validateProjectId,
  validateProjectName,
  validateTenantId,
} from "../../shared/documents/document-path.js";

describe("validateDocumentPath", () => {
  it.each([
    "_vance/skills/code-review/SKILL.md",
    "_vance/skills/code-review/references/checklist.md",
    "notes/2024-01-01_meeting+draft@v2.md",
    ".hidden/file",
    "a",
  ])("accepts %j unchanged", (path) => {
    // Act
    const result = validateDocumentPath(path);

    // Assess
    expect(result).toBe(path);
  });

  it.each([
    ["dot-dot segment", "../secret"],
    ["dot-dot in the middle", "_vance/skills/../../other/SKILL.md"],
    ["single dot segment", "./SKILL.md"],
    ["all-dots segment", "a/.../b"],
    ["percent-encoded dots", "%2e%2e/x"],
    ["mixed encoded dots", ".%2E/x"],
    ["double-encoded dots", "%252e%252e/x"],
    ["backslash traversal", "a\\..\\b"],
    ["backslash", "a\\b"],
    ["absolute path", "/etc/passwd"],
    ["trailing slash", "a/b/"],
    ["empty segment", "a//b"],
    ["empty path", ""],
    ["NUL", "a\u0000b"],
    ["newline", "a\nb"],
    ["DEL", "a\u007fb"],
    ["C1 control", "a\u0085b"],
    ["question mark", "a?b"],
    ["hash", "a#b"],
    ["space", "a b"],
    ["fullwidth dots", "\uff0e\uff0e/x"],
    ["one-dot leader", "\u2024\u2024/x"],
    ["fullwidth solidus", "a\uff0f..\uff0fb"],
    ["NFC non-ASCII", "caf\u00e9.md"],
    ["NFD variant", "cafe\u0301.md"],
    ["segment of 129", "a".repeat(129)],
    ["path of 1025", Array.from({ length: 8 }, () => "a".repeat(127)).join("/") + "/b"],
  ])("rejects %s", (_label, path) => {
    // Act
    const act = () => validateDocumentPath(path);

    // Assess
    expect(act).toThrow(InvalidRequest);
  });

  it("keeps a path of exactly 1024 characters and segments of 128", () => {
    // Prepare
    const segment = "s".repeat(128);
    const path = [segment, segment, segment, segment, segment, segment, segment, "x".repeat(1024 - 7 * 129)].join("/");

    // Act
    const result = validateDocumentPath(path);

    // Assess
    expect(result).toHaveLength(1024);
  });

  it("reports an InvalidRequest with a readable message and code", () => {
    // Act
    let error: unknown;
    try {
      validateDocumentPath("_vance/../x");
    } catch (e) {
      error = e;
    }

    // Assess
    expect(error).toBeInstanceOf(InvalidRequest);
    expect((error as InvalidRequest).code).toBe("INVALID_REQUEST");
    expect((error as InvalidRequest).message).toMatch(/dot segment/);
  });

  it("never echoes control characters in the message", () => {
    // Act
    let message = "";
    try {
      validateDocumentPath("a\u001b[31mred");
    } catch (e) {
      message = (e as Error).message;
    }

    // Assess
    expect(message).toMatch(/control characters/);
    expect(message).not.toContain("\u001b");
  });
});

describe("validateDocumentPrefix", () => {
  it.each(["", "_vance/", "_vance/skills/", "_vance/skills/co"])("accepts %j", (prefix) => {
    // Act
    const result = validateDocumentPrefix(prefix);

    // Assess
    expect(result).toBe(prefix);
  });

  it.each(["/", "../", "_vance//", "_vance/../", "%2e%2e/"])("rejects %j", (prefix) => {
    // Act
    const act = () => validateDocumentPrefix(prefix);

    // Assess
    expect(act).toThrow(InvalidRequest);
  });
});

describe("tenant, project and login names", () => {
  it.each(["acme", "t-1", "A_b-9"])("accepts tenant %j", (tenant) => {
    // Act + Assess
    expect(validateTenantId(tenant)).toBe(tenant);
  });

  it.each(["", "..", "a/b", "-a", "a.b", "_tenant", "t".repeat(65), "ａcme"])("rejects tenant %j", (tenant) => {
    // Act + Assess
    expect(() => validateTenantId(tenant)).toThrow(InvalidRequest);
  });

  it.each(["_tenant", "_user_bob", "_user_bob.smith@example.com", "_user_a+b", "proj-1", "P_2"])("accepts project %j", (project) => {
    // Act + Assess
    expect(validateProjectName(project)).toBe(project);
  });

  it.each(["", "_user_", "_user_..", "_user_a..b", "_user_a/b", "_other", "_tenant2", "..", "a/b", "p%2f", "p".repeat(65)])(
    "rejects project %j",
    (project) => {
      // Act + Assess
      expect(() => validateProjectName(project)).toThrow(InvalidRequest);
    },
  );

  it("reserves underscore-prefixed ids for _tenant and _user_ projects", () => {
    // Act + Assess
    expect(() => validateProjectId("_tenant")).toThrow(InvalidRequest);
    expect(() => validateProjectId("_user_bob")).toThrow(InvalidRequest);
    expect(validateProjectId("web-app")).toBe("web-app");
  });

  it.each(["bob", "bob.smith@example.com", "a+tag@x.io"])("accepts login %j", (login) => {
    // Act + Assess
    expect(validateLogin(login)).toBe(login);
  });

  it.each(["", ".bob", "bob.", "a..b", "a/b", "a b", "böb"])("rejects login %j", (login) => {
    // Act + Assess
    expect(() => validateLogin(login)).toThrow(InvalidRequest);
  });
});

describe("documentKey", () => {
  it("builds tenants/{tenant}/projects/{project}/{path}", () => {
    // Act
    const key = documentKey("acme", "_user_bob", "_vance/skills/x/SKILL.md");

    // Assess
    expect(key).toBe("tenants/acme/projects/_user_bob/_vance/skills/x/SKILL.md");
  });

  it.each([
    ["acme/../other", "_tenant", "a"],
    ["acme", "../other", "a"],
    ["acme", "_tenant", "../../other/projects/_tenant/a"],
    ["acme", "_tenant", "%2e%2e/a"],
  ])("refuses to leave the tenant prefix (%s, %s, %s)", (tenant, project, path) => {
    // Act + Assess
    expect(() => documentKey(tenant, project, path)).toThrow(InvalidRequest);
  });

  it("builds list prefixes inside the project", () => {
    // Act
    const all = documentKeyPrefix("acme", "p1", "");
    const skills = documentKeyPrefix("acme", "p1", "_vance/skills/");

    // Assess
    expect(all).toBe("tenants/acme/projects/p1/");
    expect(skills).toBe("tenants/acme/projects/p1/_vance/skills/");
  });
});

describe("validateDocumentPath's one-regex fast path", () => {
  // Characters each rule is about: the class, dots and slashes, forbidden ones, controls, non-ASCII, a decomposed é.
  const ALPHABET = [
    "a",
    "Z",
    "0",
    ".",
    ".",
    "/",
    "/",
    "_",
    "-",
    "@",
    "+",
    "%",
    "\\",
    "?",
    "#",
    " ",
    "\u0000",
    "\u007f",
    "é",
    "e\u0301",
    "．",
    "\u{1F600}",
  ];
  const outcome = (check: (path: string) => string, path: string): string => {
    try {
      return `ok ${check(path)}`;
    } catch (error) {
      return error instanceof InvalidRequest ? `refused ${error.message}` : `threw ${String(error)}`;
    }
  };
  const randomPath = (random: () => number): string => {
    const length = Math.floor(random() * 12);
    let path = "";
    for (let i = 0; i < length; i++) path += ALPHABET[Math.floor(random() * ALPHABET.length)];
    return path;
  };

  it("accepts and refuses exactly what the rule-by-rule checks do, with the same message", () => {
    // Prepare
    const random = prng(27);
    const paths = Array.from({ length: 20_000 }, () => randomPath(random));
    paths.push(
      "a".repeat(128),
      "a".repeat(129),
      `${"a/".repeat(512)}a`,
      `${"ab/".repeat(341)}a`,
      "../x",
      "x/..",
      "x/.../y",
      ".x/y.",
      "/a",
      "a/",
      "a//b",
    );

    // Act
    const differing = paths.filter((path) => outcome(validateDocumentPath, path) !== outcome(checkDocumentPath, path));

    // Assess
    expect(paths.filter((path) => outcome(checkDocumentPath, path).startsWith("ok")).length).toBeGreaterThan(1_000);
    expect(differing).toEqual([]);
  });
});
