import { PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localClients } from "../../infra/local/local-resources.js";
import { hostileMessage, hostilePattern } from "../../bench/trigger-attack-workload.js";
import { ApiClient, errorOf, LANE_WAIT_SECONDS, skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * Issue 11, "Trigger memory and time", over the local stack (every function in one process, like
 * one warm instance): a plain member fills their `_user_` level with DFA-hostile PATTERN triggers
 * up to the caps and sends a 32 KB message. The turn answers with a warning instead of holding
 * the instance; another tenant is served meanwhile; the caps are 422s; a level over the caps
 * written behind the API's back loses triggers with a visible problem.
 */

const TENANT = "acme";
const OTHER_TENANT = "globex";
const PROJECT = "triggers";

let stack: LocalStack;
let mallory: ApiClient;
let other: ApiClient;

let nextPattern = 0;
const patternSkill = (patterns: number): string =>
  skillMd(
    `title: Bomb\ndescription: Many patterns\nversion: 1.0.0\ntriggers:\n${Array.from({ length: patterns }, () => `  - type: PATTERN\n    pattern: ${JSON.stringify(hostilePattern(nextPattern++ % 1024))}`).join("\n")}`,
    "Body.\n",
  );
const skillPath = (name: string): string => `_vance/skills/${name}/SKILL.md`;

beforeAll(async () => {
  stack = await startLocalStack();
  const api = new ApiClient(stack.httpUrl);
  mallory = api.as(await stack.token({ tenant: TENANT, login: "mallory", projects: [PROJECT] }));
  other = api.as(await stack.token({ tenant: OTHER_TENANT, login: "olga", projects: [PROJECT] }));
  // 20 skills × 10 PATTERN triggers: exactly the per-skill and the per-level caps.
  for (let s = 0; s < 20; s++) {
    const saved = await mallory.putDocument(TENANT, "_user_mallory", skillPath(`bomb-${String(s).padStart(2, "0")}`), patternSkill(10));
    if (saved.status !== 200) throw new Error(`setup: PUT answered ${saved.status}: ${saved.text}`);
  }
});

afterAll(async () => {
  await stack?.close();
});

describe("trigger caps over HTTP", () => {
  it("refuses a SKILL.md with 11 PATTERN triggers and the one that would take a full user level past 200, each with 422 INVALID_DOCUMENT", async () => {
    // Act
    const perSkill = await mallory.putDocument(TENANT, "_user_mallory", skillPath("too-many"), patternSkill(11));
    const perLevel = await mallory.putDocument(TENANT, "_user_mallory", skillPath("one-more"), patternSkill(1));
    const noTriggers = await mallory.putDocument(TENANT, "_user_mallory", skillPath("quiet"), skillMd("title: Quiet\ndescription: No triggers\nversion: 1.0.0", "Body.\n"));

    // Assess
    expect(perSkill.status).toBe(422);
    expect(errorOf(perSkill)?.code).toBe("INVALID_DOCUMENT");
    expect(perSkill.text).toContain("at most 10 are allowed per skill");
    expect(perLevel.status).toBe(422);
    expect(perLevel.text).toContain("would hold 201 PATTERN triggers; at most 200 are allowed per level");
    expect(noTriggers.status).toBe(200);
  });

  it("keeps the skills of a level filled past its cap behind the API's back, without the triggers past it, and says so in problems", async () => {
    // Prepare
    const clients = localClients(stack.endpoints, stack.region, stack.credentials);
    try {
      for (let s = 0; s < 21; s++) {
        await clients.s3.send(
          new PutObjectCommand({ Bucket: stack.resources.bucketName, Key: `tenants/${TENANT}/projects/${PROJECT}/${skillPath(`smuggled-${String(s).padStart(2, "0")}`)}`, Body: patternSkill(10) }),
        );
      }
    } finally {
      clients.destroy();
    }

    // Act
    const problems = await mallory.problems(TENANT, PROJECT);
    const listing = await mallory.effective(TENANT, PROJECT);

    // Assess
    expect(problems.status).toBe(200);
    const dropped = problems.json.problems.filter((p) => p.message.startsWith("triggers ignored:"));
    expect(dropped.map((p) => [p.name, p.source])).toEqual([["smuggled-20", "PROJECT"]]);
    const smuggled = listing.json.skills.find((s) => s.name === "smuggled-20");
    expect(smuggled?.triggers).toEqual([]);
    expect(listing.json.skills.find((s) => s.name === "smuggled-19")?.triggers).toHaveLength(10);
  });
});

describe("a 32 KB message against a level full of hostile PATTERN triggers", () => {
  it("composes the turn with a warning naming the skipped skills while another tenant is served", async () => {
    // Prepare
    const spawned = await mallory.spawn(TENANT, "s-attack", { recipe: "default", projectId: PROJECT });
    expect(spawned.status).toBe(201);
    const message = hostileMessage(32 * 1024 - 64);
    const events: string[] = [];
    let composing = true;
    const otherStatuses: number[] = [];

    // Act
    const compose = mallory.compose(TENANT, spawned.json.processId, { message }, LANE_WAIT_SECONDS).then((answer) => {
      composing = false;
      events.push("compose answered");
      return answer;
    });
    const otherTenant = (async () => {
      while (composing && otherStatuses.length < 200) {
        const listed = await other.effective(OTHER_TENANT, PROJECT);
        otherStatuses.push(listed.status);
        if (composing) events.push("other tenant served");
      }
    })();
    const [answer] = await Promise.all([compose, otherTenant]);

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.json.status).toBe("DONE");
    // `warnings` rides along the API.md Turn (the service's addition; the client's Turn type is the contract's).
    const warnings = (answer.json.result as { warnings?: string[] } | undefined)?.warnings ?? [];
    expect(warnings.find((w) => w.includes("were not checked"))).toMatch(/^Trigger matching used its \d+ ms budget for this turn; the PATTERN triggers of \d+ skill\(s\) were not checked and they were not auto-activated: 'bomb-/);
    expect(otherStatuses.every((status) => status === 200)).toBe(true);
    expect(events[0]).toBe("other tenant served");
  });
});
