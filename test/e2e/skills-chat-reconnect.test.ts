import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SkillsClient } from "skills-service/client";
import { skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";
import { TmuxTerminal } from "./support/tmux.js";

/**
 * `skills chat` when its WebSocket is lost: the local stack closes idle sockets quickly here
 * (as API Gateway does after its idle timeout); the chat says so, reconnects, subscribes again,
 * and a scheduled turn still reaches it.
 */

const TENANT = "acme";
const PROJECT = "chat";
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

let stack: LocalStack;
let token: string;
let terminal: TmuxTerminal | undefined;

beforeAll(async () => {
  stack = await startLocalStack({ webSocketIdleTimeoutMs: 3_000 });
  token = await stack.token({ tenant: TENANT, login: "carol", projects: [PROJECT], roles: [`project-admin:${PROJECT}`] });
  const client = new SkillsClient({ baseUrl: stack.httpUrl, tenant: TENANT, token });
  await client.documents.put(
    PROJECT,
    "_vance/skills/announce/SKILL.md",
    skillMd("title: Announce\ndescription: Announces itself\nversion: 1.0.0\naction: Announce the plan."),
  );
});

afterAll(async () => {
  await terminal?.kill();
  await stack?.close();
});

describe("skills chat over a dropped WebSocket", () => {
  it("reports the lost connection, reconnects, and still shows scheduled turns", async () => {
    // Prepare
    terminal = await TmuxTerminal.start(
      `skills-chat-reconnect-${process.pid}`,
      `cd ${repoRoot} && node bin/skills.mjs chat --project ${PROJECT}; echo "chat exited: $?"; sleep 600`,
      {
        SKILLS_URL: stack.httpUrl,
        SKILLS_TOKEN: token,
        SKILLS_LLM_URL: "",
        POWERTOOLS_LOG_LEVEL: "ERROR",
      },
    );
    await terminal.waitFor(/>$/m, { timeoutMs: 30_000 });

    // Act
    const lost = await terminal.waitFor(/» connection lost \(1001\); reconnecting, attempt 1/, { timeoutMs: 20_000 });
    const back = await terminal.waitFor("» reconnected", { timeoutMs: 20_000 });
    await terminal.type("/skill announce", "Enter");
    const scheduled = await terminal.waitFor(/» turn scheduled \(action\)/, { timeoutMs: 20_000 });
    await terminal.keys("C-d");
    const exited = await terminal.waitFor("chat exited: 0");

    // Assess
    expect(lost).toContain("connection lost");
    expect(back).toContain("reconnected");
    expect(scheduled).toContain("[_skill] Announce the plan.");
    expect(exited).toContain("bye");
  });
});
