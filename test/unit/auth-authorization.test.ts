import { describe, expect, it } from "vitest";
import { Forbidden } from "../../shared/auth/auth-errors.js";
import {
  assertCanReadDocuments,
  assertCanWriteDocuments,
  assertProcessMetadataAccess,
  assertProcessOwner,
  assertProjectAccess,
  assertTenant,
  canReadDocuments,
  canWriteDocuments,
} from "../../shared/auth/authorization.js";
import type { Identity } from "../../shared/auth/identity.js";
import { ProcessNotFound } from "../../shared/processes/process-errors.js";

const who = (login: string, projects: string[] = [], roles: string[] = [], tenant = "acme"): Identity => ({ login, tenant, projects, roles });

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

  it.each(table.map(([person, project]) => [person, project] as const))("%s on %s of another tenant is always forbidden", (person, project) => {
    // Prepare
    const identity = people[person];

    // Act
    const read = () => assertCanReadDocuments(identity, "globex", project);
    const write = () => assertCanWriteDocuments(identity, "globex", project);

    // Assess
    expect(read).toThrow(Forbidden);
    expect(write).toThrow(Forbidden);
  });

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

describe("process access (API.md: processes belong to their user)", () => {
  // mia (member of P) spawned it.
  const processOfP = { tenant: "acme", processId: "proc-1", projectId: P, userId: "mia" };

  it.each([
    ["member of P", true, true],
    ["another user", false, false],
    ["non-member", false, false],
    ["tenant user", false, false],
    ["project-admin of P", false, true],
    ["project-admin of another project", false, false],
    ["tenant-admin", false, true],
  ] as [Person, boolean, boolean][])("%s: use as owner=%s, read metadata=%s", (person, owner, metadata) => {
    // Prepare
    const identity = people[person];

    // Act
    const asOwner = () => assertProcessOwner(identity, processOfP);
    const asReader = () => assertProcessMetadataAccess(identity, processOfP);

    // Assess
    if (owner) expect(asOwner).not.toThrow();
    else expect(asOwner).toThrow(Forbidden);
    if (metadata) expect(asReader).not.toThrow();
    else expect(asReader).toThrow(Forbidden);
  });

  it("refuses the owner who is no longer a member of the process's project", () => {
    // Prepare
    const formerMember = who("mia", ["beta"]);

    // Act
    const outcome = () => assertProcessOwner(formerMember, processOfP);

    // Assess
    expect(outcome).toThrow(Forbidden);
  });

  it.each([
    ["no owner at all", { userId: undefined }],
    ["an empty owner", { userId: "" }],
  ])("lets nobody use a process with %s, not even a tenant-admin", (_label, override) => {
    // Prepare
    const ownerless = { ...processOfP, ...override };

    // Act
    const asAdmin = () => assertProcessOwner(people["tenant-admin"], ownerless);
    const asMember = () => assertProcessOwner(people["member of P"], ownerless);

    // Assess
    expect(asAdmin).toThrow(Forbidden);
    expect(asMember).toThrow(Forbidden);
  });

  it("reports another tenant's process as not found, even to that tenant's admin or a user of the same login", () => {
    // Prepare
    const foreignAdmin = who("tara", [P], ["tenant-admin"], "globex");
    const sameLoginElsewhere = who("mia", [P], [], "globex");

    // Act
    const outcomes = [
      () => assertProcessOwner(foreignAdmin, processOfP),
      () => assertProcessMetadataAccess(foreignAdmin, processOfP),
      () => assertProcessOwner(sameLoginElsewhere, processOfP),
    ];

    // Assess
    for (const outcome of outcomes) expect(outcome).toThrow(ProcessNotFound);
  });
});
