import { describe, expect, it } from "vitest";
import { Forbidden } from "../../shared/auth/auth-errors.js";
import {
  assertCanReadDocuments,
  assertCanWriteDocuments,
  assertProcessAccess,
  assertProjectAccess,
  assertTenant,
  canReadDocuments,
  canWriteDocuments,
} from "../../shared/auth/authorization.js";
import type { Identity } from "../../shared/auth/identity.js";
import { ProcessNotFound } from "../../shared/processes/process-errors.js";

const who = (login: string, projects: string[] = [], roles: string[] = [], tenant = "acme"): Identity => ({
  login,
  tenant,
  projects,
  roles,
});

// Project P is "alpha"; olga owns `_user_olga`.
const people = {
  "tenant user": who("uma"),
  "member of P": who("mia", ["alpha"]),
  "non-member": who("nina", ["beta"]),
  "project-admin of P": who("pat", ["alpha"], ["project-admin:alpha"]),
  "project-admin of another project": who("otto", ["beta"], ["project-admin:beta"]),
  "tenant-admin": who("tara", [], ["tenant-admin"]),
  "the owning user": who("olga"),
  "another user": who("oscar", ["alpha"]),
} as const;
type Person = keyof typeof people;

const TENANT = "_tenant";
const P = "alpha";
const USER = "_user_olga";

/** API.md's table, one row per (who, documents, action): [who, project, read, write]. */
const table: [Person, string, boolean, boolean][] = [
  ["tenant user", TENANT, true, false],
  ["tenant user", P, false, false],
  ["tenant user", USER, false, false],
  ["member of P", TENANT, true, false],
  ["member of P", P, true, false],
  ["member of P", USER, false, false],
  ["non-member", TENANT, true, false],
  ["non-member", P, false, false],
  ["non-member", USER, false, false],
  ["project-admin of P", TENANT, true, false],
  ["project-admin of P", P, true, true],
  ["project-admin of P", USER, false, false],
  ["project-admin of another project", TENANT, true, false],
  ["project-admin of another project", P, false, false],
  ["project-admin of another project", USER, false, false],
  ["tenant-admin", TENANT, true, true],
  ["tenant-admin", P, true, true],
  ["tenant-admin", USER, false, false],
  ["the owning user", TENANT, true, false],
  ["the owning user", P, false, false],
  ["the owning user", USER, true, true],
  ["another user", TENANT, true, false],
  ["another user", P, true, false],
  ["another user", USER, false, false],
];

describe("document authorization table", () => {
  it.each(table)("%s on %s: read=%s write=%s", (person, project, read, write) => {
    // Prepare
    const identity = people[person];

    // Act
    const canRead = canReadDocuments(identity, project);
    const canWrite = canWriteDocuments(identity, project);

    // Assess
    expect(canRead).toBe(read);
    expect(canWrite).toBe(write);
  });

  it.each(table)("%s on %s: the assert forms agree with the table (read=%s write=%s)", (person, project, read, write) => {
    // Prepare
    const identity = people[person];

    // Act
    const readOutcome = () => assertCanReadDocuments(identity, "acme", project);
    const writeOutcome = () => assertCanWriteDocuments(identity, "acme", project);

    // Assess
    if (read) expect(readOutcome).not.toThrow();
    else expect(readOutcome).toThrow(Forbidden);
    if (write) expect(writeOutcome).not.toThrow();
    else expect(writeOutcome).toThrow(Forbidden);
  });

  it.each(table.map(([person, project]) => [person, project] as const))(
    "%s on %s of another tenant is always forbidden",
    (person, project) => {
      // Prepare
      const identity = people[person];

      // Act
      const read = () => assertCanReadDocuments(identity, "globex", project);
      const write = () => assertCanWriteDocuments(identity, "globex", project);

      // Assess
      expect(read).toThrow(Forbidden);
      expect(write).toThrow(Forbidden);
    },
  );

  it("treats project-admin of P as a member of P even without the membership claim", () => {
    // Prepare
    const admin = who("ada", [], ["project-admin:alpha"]);

    // Act
    const canRead = canReadDocuments(admin, P);

    // Assess
    expect(canRead).toBe(true);
  });

  it.each(["_user_", "_user_OLGA", "_tenantx", "_other", ""])("grants nothing on the reserved or odd project name %j", (project) => {
    // Prepare
    const admin = who("olga", ["alpha"], ["tenant-admin", "project-admin:alpha"]);

    // Act
    const outcome = [canReadDocuments(admin, project), canWriteDocuments(admin, project)];

    // Assess
    expect(outcome).toEqual([false, false]);
  });
});

describe("document refusals say what the token lacks and how to get it", () => {
  const refusal = (assert: () => void): string => {
    try {
      assert();
    } catch (error) {
      if (error instanceof Forbidden) return error.message;
      throw error;
    }
    throw new Error("not refused");
  };

  it("a member pushing to its project: writing needs project-admin:P, membership alone is read-only", () => {
    // Act
    const message = refusal(() => assertCanWriteDocuments(people["member of P"], "acme", "alpha"));

    // Assess
    expect(message).toBe(
      "Not allowed to write documents of 'alpha' as 'mia': writing needs the role 'project-admin:alpha' (or 'tenant-admin'); membership alone is read-only; this token has projects 'alpha' and roles none; ask for a token with it (npx skills token … --roles project-admin:alpha)",
    );
  });

  it("a non-member reading: names the membership to ask for and the projects the token has", () => {
    // Act
    const message = refusal(() => assertCanReadDocuments(people["non-member"], "acme", "alpha"));

    // Assess
    expect(message).toContain("reading needs membership in 'alpha'");
    expect(message).toContain("this token has projects 'beta'");
    expect(message).toContain("--projects alpha");
  });

  it("writing _tenant names the tenant-admin role; another user's level says no role grants it", () => {
    // Act
    const tenant = refusal(() => assertCanWriteDocuments(people["member of P"], "acme", "_tenant"));
    const other = refusal(() => assertCanReadDocuments(people["tenant-admin"], "acme", "_user_olga"));

    // Assess
    expect(tenant).toContain("writing '_tenant' needs the role 'tenant-admin'");
    expect(other).toContain("are olga's alone (no role grants them to anyone else); use '_user_tara' for your own");
  });
});

describe("assertTenant", () => {
  it("passes for the token's own tenant and forbids any other, even for a tenant-admin", () => {
    // Prepare
    const admin = people["tenant-admin"];

    // Act
    const own = () => assertTenant(admin, "acme");
    const other = () => assertTenant(admin, "globex");
    const caseVariant = () => assertTenant(admin, "ACME");

    // Assess
    expect(own).not.toThrow();
    expect(other).toThrow(Forbidden);
    expect(caseVariant).toThrow(Forbidden);
  });
});

describe("project access (list with projectId, spawn)", () => {
  it.each([
    ["member of P", true],
    ["project-admin of P", true],
    ["tenant-admin", true],
    ["non-member", false],
    ["tenant user", false],
    ["project-admin of another project", false],
  ] as [Person, boolean][])("%s → allowed=%s", (person, allowed) => {
    // Prepare
    const identity = people[person];

    // Act
    const outcome = () => assertProjectAccess(identity, P);

    // Assess
    if (allowed) expect(outcome).not.toThrow();
    else expect(outcome).toThrow(Forbidden);
  });

  it("never grants a reserved name as a project, even to a tenant-admin", () => {
    // Prepare
    const admin = people["tenant-admin"];

    // Act
    const outcome = () => assertProjectAccess(admin, "_tenant");

    // Assess
    expect(outcome).toThrow(Forbidden);
  });
});

describe("process access (read, steer)", () => {
  const processOfP = { tenant: "acme", processId: "proc-1", projectId: P };

  it("lets a member of the process's project in", () => {
    // Prepare
    const member = people["member of P"];

    // Act
    const outcome = () => assertProcessAccess(member, processOfP);

    // Assess
    expect(outcome).not.toThrow();
  });

  it("forbids a non-member of the same tenant", () => {
    // Prepare
    const outsider = people["non-member"];

    // Act
    const outcome = () => assertProcessAccess(outsider, processOfP);

    // Assess
    expect(outcome).toThrow(Forbidden);
  });

  it("reports another tenant's process as not found, even to that tenant's admin", () => {
    // Prepare
    const foreignAdmin = who("tara", [P], ["tenant-admin"], "globex");

    // Act
    const outcome = () => assertProcessAccess(foreignAdmin, processOfP);

    // Assess
    expect(outcome).toThrow(ProcessNotFound);
  });
});
