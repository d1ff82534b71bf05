import { describe, expect, it } from "vitest";
import { describeZodIssues } from "../../shared/http/zod-issues.js";
import { decodeLaneMessage } from "../../shared/lanes/lane-message.js";
import { parseLanePayload } from "../../shared/lanes/lane-payloads.js";
import { parseRecord } from "../../shared/processes/request-store-base.js";
import { SERVICE_TOOLS } from "../../shared/tools/service-tools.js";

/**
 * The service's schemas are zod/mini, which carries no message locale of its own: without
 * contract/locale.ts every issue would read "Invalid input". These are the English messages
 * classic zod gave the same schemas (issue 31 moved them to zod/mini); this file imports no
 * classic zod, so nothing but the service's own modules can have loaded the locale.
 */

const thrown = (action: () => unknown): Error => {
  try {
    action();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a throw");
};

describe("schema messages under zod/mini", () => {
  it("names the expected type of a lane payload field", () => {
    // Act
    const error = thrown(() => parseLanePayload("skill.activate", { skillName: 1, extra: true }));

    // Assess
    expect(error.message).toBe(
      'Invalid skill.activate request: skillName: Invalid input: expected string, received number; (payload): Unrecognized key: "extra"',
    );
  });

  it("keeps a refinement's own message and the size bounds", () => {
    // Prepare
    const search = SERVICE_TOOLS.find((tool) => tool.name === "skill_search")!;

    // Act
    const parsed = search.schema.safeParse({ query: " ", limit: 0 });

    // Assess
    expect(parsed.success).toBe(false);
    expect(describeZodIssues(parsed.error!)).toBe("query: must not be blank; limit: Too small: expected number to be >=1");
  });

  it("describes a malformed lane message field by field", () => {
    // Prepare
    const body = JSON.stringify({ requestId: "", processId: "p", tenant: "t", user: null, kind: "nope", enqueuedAt: "yesterday" });

    // Act
    const error = thrown(() => decodeLaneMessage(body));

    // Assess
    expect(error.message).toBe(
      "Malformed lane message: does not match the lane message schema (requestId: Too small: expected string to have >=1 characters; " +
        'kind: Invalid option: expected one of "skill.activate"|"skill.clear"|"skill.clearAll"|"turn.compose"|"turn.complete"|"process.spawnActivate"|"process.report"; ' +
        "enqueuedAt: Invalid ISO datetime)",
    );
  });

  it("refuses a corrupt stored request record with zod's issues", () => {
    // Act
    const error = thrown(() => parseRecord({ requestId: "r", processId: "p", kind: "k", status: "LOST" })) as Error & {
      issues: { path: PropertyKey[]; message: string }[];
    };

    // Assess
    expect(error.issues).toEqual([
      expect.objectContaining({ path: ["status"], message: 'Invalid option: expected one of "QUEUED"|"DONE"|"FAILED"' }),
    ]);
  });
});
