import { describe, expect, it } from "vitest";
import { nameClaimKey, requestItemKey } from "../../shared/aws/dynamodb-keys.js";

const keyText = (key: { pk: string; sk: string }): string => `${key.pk}|${key.sk}`;

describe("table keys scoped by process and by user", () => {
  it.each([
    [
      ["acme", "p#R#x", "r"],
      ["acme", "p", "x#R#r"],
    ],
    [
      ["acme", "p", "r"],
      ["acme", "p ", "r"],
    ],
    [
      ["ac#P#me", "p", "r"],
      ["ac", "me#P#p", "r"],
    ],
    [
      ["acme", "p%23", "r"],
      ["acme", "p#", "r"],
    ],
  ] as [string, string, string][][])("never lets a crafted processId or requestId address another request: %j vs %j", (a, b) => {
    // Act
    const first = requestItemKey(...(a as [string, string, string]));
    const second = requestItemKey(...(b as [string, string, string]));

    // Assess
    expect(keyText(first)).not.toBe(keyText(second));
  });

  it("puts the same requestId of two processes under two keys", () => {
    // Act
    const keys = new Set(["p-1", "p-2"].map((processId) => keyText(requestItemKey("acme", processId, "same"))));

    // Assess
    expect(keys.size).toBe(2);
  });

  it.each([
    [
      ["acme", "alice#S#s1", "x", "n"],
      ["acme", "alice", "s1#S#x", "n"],
    ],
    [
      ["acme", "alice", "s1", "n"],
      ["acme", "bob", "s1", "n"],
    ],
    [
      ["acme", "", "s1", "n"],
      ["acme", "alice", "s1", "n"],
    ],
    [
      ["acme", "alice", "s1#U#x", "n"],
      ["acme", "alice#U#s1", "x", "n"],
    ],
  ] as [string, string, string, string][][])("keeps users' sessions apart in name claims: %j vs %j", (a, b) => {
    // Act
    const first = nameClaimKey(...(a as [string, string, string, string]));
    const second = nameClaimKey(...(b as [string, string, string, string]));

    // Assess
    expect(keyText(first)).not.toBe(keyText(second));
  });
});
