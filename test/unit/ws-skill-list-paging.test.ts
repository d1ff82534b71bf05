import { describe, expect, it } from "vitest";
import { createWsFrameRouter } from "../../shared/app/ws-frame-router.js";
import type { WsFrameRouterDeps } from "../../shared/app/ws-frame-router.js";
import { parseIdentity } from "../../shared/auth/identity.js";
import { InMemoryConnectionStore } from "../../shared/connections/in-memory-connection-store.js";
import { MAX_FRAME_BYTES } from "../../shared/connections/frame-size.js";
import type { SkillListResultFrame } from "../../shared/connections/server-frames.js";
import { RecordingConnectionPush } from "../support/recording-connection-push.js";

/** API.md, second round: `skill-list` takes `cursor`, `skill-list-result` answers `nextCursor` instead of cutting. */

const ALICE = parseIdentity({ login: "alice", tenant: "acme", projects: ["proj1"], roles: [] });

/** `count` skills whose summaries are about `descriptionChars` long, listed out of order (the app sorts; the page keeps its order). */
const listing = (count: number, descriptionChars: number) =>
  Array.from({ length: count }, (_, i) => ({
    name: `skill-${String(i).padStart(4, "0")}`,
    title: `Skill ${i}`,
    description: "d".repeat(descriptionChars),
    version: "1.0.0",
    tags: [],
    source: "PROJECT",
    lifecycle: "sticky",
    triggers: [],
    arguments: [],
    userInvocable: true,
  }));

function setup(skills: ReturnType<typeof listing>) {
  const push = new RecordingConnectionPush();
  const app = {
    getProcess: async () => Promise.reject(new Error("not used")),
    getRequest: async () => undefined,
    steerSkill: async () => Promise.reject(new Error("not used")),
    listEffective: async () => skills,
  } as unknown as WsFrameRouterDeps["app"];
  const router = createWsFrameRouter({ app, connections: new InMemoryConnectionStore(), push });
  const send = async (frame: Record<string, unknown>) => {
    await router({ identity: ALICE, connectionId: "c1" }, JSON.stringify(frame));
    return push.sent.at(-1)!;
  };
  return { send };
}

describe("skill-list paging", () => {
  it("pages a list larger than one frame with nextCursor; every skill arrives exactly once, in order, nothing truncated", async () => {
    // Prepare
    const skills = listing(600, 900);
    const { send } = setup(skills);
    const names: string[] = [];

    // Act
    let cursor: string | undefined;
    let pages = 0;
    do {
      const sent = await send({
        type: "skill-list",
        projectId: "proj1",
        requestId: `p${pages}`,
        ...(cursor === undefined ? {} : { cursor }),
      });
      const frame = sent.frame as SkillListResultFrame;
      expect(sent.bytes).toBeLessThanOrEqual(MAX_FRAME_BYTES);
      expect(frame.truncated).toBeUndefined();
      names.push(...frame.skills.map((s) => s.name));
      cursor = frame.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 50);

    // Assess
    expect(pages).toBeGreaterThan(1);
    expect(names).toEqual(skills.map((s) => s.name));
  });

  it("answers a short list in one frame without nextCursor", async () => {
    // Prepare
    const { send } = setup(listing(3, 10));

    // Act
    const { frame } = await send({ type: "skill-list", projectId: "proj1" });

    // Assess
    expect((frame as SkillListResultFrame).skills).toHaveLength(3);
    expect(frame).not.toHaveProperty("nextCursor");
  });

  it.each([
    ["not base64 JSON", "%%%"],
    ["JSON without 'after'", Buffer.from('{"x":1}').toString("base64url")],
    ["a number", Buffer.from("42").toString("base64url")],
  ])("refuses a cursor that is %s with an INVALID_REQUEST error frame", async (_label, cursor) => {
    // Prepare
    const { send } = setup(listing(3, 10));

    // Act
    const { frame } = await send({ type: "skill-list", projectId: "proj1", requestId: "bad", cursor });

    // Assess
    expect(frame).toEqual({
      type: "error",
      requestId: "bad",
      error: { code: "INVALID_REQUEST", message: expect.stringContaining("cursor") },
    });
  });

  it("continues after the cursor's skill even when skills were added before it meanwhile", async () => {
    // Prepare
    const skills = listing(600, 900);
    const { send } = setup(skills);
    const first = (await send({ type: "skill-list", projectId: "proj1" })).frame as SkillListResultFrame;
    skills.unshift({ ...skills[0]!, name: "aaa-new" });

    // Act
    const second = (await send({ type: "skill-list", projectId: "proj1", cursor: first.nextCursor })).frame as SkillListResultFrame;

    // Assess
    expect((second.skills[0]?.name ?? "") > (first.skills.at(-1)?.name ?? "")).toBe(true);
    expect(second.skills.map((s) => s.name)).not.toContain("aaa-new");
  });
});
