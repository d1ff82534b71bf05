import { describe, expect, it } from "vitest";
import { laneDeduplicationId, laneGroupId } from "../../shared/lanes/lane-identity.js";

const SQS_ID = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;

describe("lane identity", () => {
  it("uses <tenant>#<processId> as the group when it fits SQS", () => {
    // Act
    const groupId = laneGroupId("acme", "3f1c9a2e-5b7d-4c1e-9f00-1234567890ab");

    // Assess
    expect(groupId).toBe("acme#3f1c9a2e-5b7d-4c1e-9f00-1234567890ab");
  });

  it.each([
    ["too long", "acme", "p".repeat(200)],
    ["outside the SQS alphabet", "acmé", "proc 1"],
    ["ambiguous with a #", "a#b", "c"],
  ])("digests a group id that is %s, deterministically and within SQS limits", (_label, tenant, processId) => {
    // Act
    const first = laneGroupId(tenant, processId);
    const second = laneGroupId(tenant, processId);

    // Assess
    expect(first).toBe(second);
    expect(first).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(first).toMatch(SQS_ID);
  });

  it("keeps tenants apart even when the joined text would be equal", () => {
    // Act
    const left = laneGroupId("a#b", "c");
    const right = laneGroupId("a", "b#c");

    // Assess
    expect(left).not.toBe(right);
  });

  it("de-duplicates a requestId only within its tenant and process", () => {
    // Prepare
    const base = { tenant: "acme", processId: "p1", requestId: "1" };

    // Act
    const same = laneDeduplicationId({ ...base });
    const ids = [
      laneDeduplicationId(base),
      laneDeduplicationId({ ...base, tenant: "evil" }),
      laneDeduplicationId({ ...base, processId: "p2" }),
      laneDeduplicationId({ ...base, requestId: "2" }),
    ];

    // Assess
    expect(same).toBe(ids[0]);
    expect(new Set(ids).size).toBe(4);
  });

  it("fits any requestId into the SQS de-duplication id alphabet", () => {
    // Act
    const id = laneDeduplicationId({ tenant: "acme", processId: "p1", requestId: "ünïcode request id with spaces ".repeat(20) });

    // Assess
    expect(id).toMatch(SQS_ID);
  });
});
