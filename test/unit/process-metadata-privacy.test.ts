import { describe, expect, it } from "vitest";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { handlerHarness, TENANT } from "../support/handler-harness.js";
import type { HandlerHarness } from "../support/handler-harness.js";
import type { Process } from "../../shared/processes/process.js";

/**
 * Issue 28 "Process metadata exposes private content": API.md lets `project-admin:P` and
 * tenant-admin read a process's metadata, but the content of a `_user_` document reaches no one
 * but its user. Every field that can carry such content is seeded with a marker; the owner sees
 * each, an admin sees that it exists and never the marker — one case per field, per route.
 */
const SECRET = "SECRET-OF-ALICE";

type Seed = (process: Process) => Partial<Process>;

/** Each field that can carry text derived from alice's `_user_` documents, with what an admin still sees. */
const FIELDS: { field: string; seed: Seed; adminSees: (json: Record<string, unknown>) => void }[] = [
  {
    field: "pending[].text (a private skill's rendered action:)",
    seed: () => ({
      pending: [{ id: "m1", sender: "_skill", kind: "action", skill: "diary", text: `${SECRET} action`, at: new Date().toISOString() }],
    }),
    adminSees: (json) =>
      expect(json.pending).toEqual([{ id: "m1", sender: "_skill", kind: "action", skill: "diary", at: expect.any(String) }]),
  },
  {
    field: "guard.source (installed by a private skill's activate:)",
    seed: () => ({ guard: { type: "inline", source: `return "${SECRET}"` } }),
    adminSees: (json) => expect(json.guard).toEqual({ type: "inline" }),
  },
  {
    field: "guard.path and guard.layer (a script guard of a private skill)",
    seed: () => ({
      guard: { type: "script", path: `_vance/skills/diary/${SECRET}.js`, layer: { source: "USER", project: "_user_alice" } },
    }),
    adminSees: (json) => expect(json.guard).toEqual({ type: "script" }),
  },
  {
    field: "activeSkills[].args",
    seed: (p) => ({
      activeSkills: [
        ...p.activeSkills,
        {
          name: "diary",
          resolvedFromScope: "USER",
          oneShot: false,
          fromRecipe: false,
          activatedAt: new Date().toISOString(),
          args: `${SECRET} args`,
          activatedBy: "explicit",
        },
      ],
    }),
    adminSees: (json) =>
      expect(json.activeSkills).toEqual([expect.objectContaining({ name: "diary", resolvedFromScope: "USER", activatedBy: "explicit" })]),
  },
  {
    field: "allowedSkillsOverride (a private recipe's list)",
    seed: () => ({ allowedSkillsOverride: [`${SECRET.toLowerCase()}-skill`] }),
    adminSees: (json) => expect(json).not.toHaveProperty("allowedSkillsOverride"),
  },
  {
    field: "skillVersions (a private recipe's pins)",
    seed: () => ({ skillVersions: { diary: `${SECRET}-version` } }),
    adminSees: (json) => expect(json).not.toHaveProperty("skillVersions"),
  },
];

async function seeded(seed: Seed): Promise<{ h: HandlerHarness; processId: string }> {
  const h = await handlerHarness();
  const process = await h.spawn();
  await h.processes.update(TENANT, process.processId, (p) => ({ ...p, ...seed(p) }));
  return { h, processId: process.processId };
}

const lower = (text: string): string => text.toLowerCase();

describe("process metadata: a field derived from _user_ content is the owner's alone", () => {
  it.each(FIELDS)("GET …/processes/{id}: $field", async ({ seed, adminSees }) => {
    // Prepare
    const { h, processId } = await seeded(seed);

    // Act
    const owner = await h.call("processes", { method: "GET", path: `/brain/acme/processes/${processId}` });
    const padmin = await h.call("processes", { method: "GET", path: `/brain/acme/processes/${processId}`, as: IDENTITIES.padmin });
    const admin = await h.call("processes", { method: "GET", path: `/brain/acme/processes/${processId}`, as: IDENTITIES.admin });

    // Assess
    expect(owner.status).toBe(200);
    expect(lower(owner.raw.toString())).toContain(lower(SECRET));
    expect(owner.json).not.toHaveProperty("withheld");
    for (const reply of [padmin, admin]) {
      expect(reply.status).toBe(200);
      expect(lower(reply.raw.toString())).not.toContain(lower(SECRET));
      adminSees(reply.json);
      expect(reply.json.withheld).toEqual(expect.arrayContaining(["pending[].text", "guard.source", "activeSkills[].args"]));
    }
  });

  it("GET …/skills/active?processId=: the owner gets the args, an admin the active skills without them", async () => {
    // Prepare
    const activeSkills = FIELDS.find((f) => f.field.startsWith("activeSkills"))!;
    const { h, processId } = await seeded(activeSkills.seed);

    // Act
    const owner = await h.call("skills", { method: "GET", path: `/brain/acme/skills/active?processId=${processId}` });
    const replies = await Promise.all(
      [IDENTITIES.padmin, IDENTITIES.admin].map((as) =>
        h.call("skills", { method: "GET", path: `/brain/acme/skills/active?processId=${processId}`, as }),
      ),
    );

    // Assess
    expect(owner.status).toBe(200);
    expect(owner.json.activeSkills[0].args).toBe(`${SECRET} args`);
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.raw.toString()).not.toContain(SECRET);
      expect(reply.json.activeSkills).toEqual([expect.objectContaining({ name: "diary", activatedBy: "explicit" })]);
      expect(reply.json.activeSkills[0]).not.toHaveProperty("args");
    }
  });

  it("keeps every owner-only route closed to an admin, so no other route hands the withheld fields out", async () => {
    // Prepare
    const { h, processId } = await seeded((p) => Object.assign({}, ...FIELDS.map((f) => f.seed(p))) as Partial<Process>);
    const base = `/brain/acme/processes/${processId}`;

    // Act
    const replies = await Promise.all(
      [IDENTITIES.padmin, IDENTITIES.admin].flatMap((as) => [
        h.call("processes", { method: "GET", path: `${base}/composition?message=hi`, as }),
        h.call("processes", { method: "GET", path: `${base}/requests/r-1`, as }),
        h.call("processes", { method: "GET", path: `${base}/turns/t-1`, as }),
        h.call("tools", { method: "POST", path: `${base}/tools/manual_list`, as, body: { args: {} } }),
      ]),
    );

    // Assess
    for (const reply of replies) {
      expect(reply.status).toBe(403);
      expect(lower(reply.raw.toString())).not.toContain(lower(SECRET));
    }
  });
});

describe("process names", () => {
  it("refuses a name with control characters at spawn (400, the field named), since chats print it in their prompt", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("processes", {
      method: "POST",
      path: "/brain/acme/sessions/s1/processes",
      body: { recipe: "open", projectId: "proj1", name: "main\u001b]2;owned\u0007" },
    });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe("INVALID_REQUEST");
    expect(reply.json.error.message).toMatch(/name.*control characters/);
  });
});
