import { describe, expect, it } from "vitest";
import { storedItemOf } from "../../shared/processes/dynamodb-process-store.js";

const conditionalCheckFailed = (item?: unknown): Error =>
  Object.assign(new Error("The conditional request failed"), {
    name: "ConditionalCheckFailedException",
    ...(item !== undefined ? { Item: item } : {}),
  });

describe("storedItemOf", () => {
  it("turns the marshalled item of a failed condition into plain data", () => {
    // Prepare
    const error = conditionalCheckFailed({
      pk: { S: "T#acme#P#p-1" },
      version: { N: "7" },
      locked: { BOOL: false },
      guard: { NULL: true },
      pending: { L: [{ M: { id: { S: "m-1" }, text: { S: "" } } }] },
      turn: { M: { turnId: { S: "t-1" }, oneShotSkills: { L: [] } } },
    });

    // Act
    const item = storedItemOf(error);

    // Assess
    expect(item).toEqual({
      pk: "T#acme#P#p-1",
      version: 7,
      locked: false,
      guard: null,
      pending: [{ id: "m-1", text: "" }],
      turn: { turnId: "t-1", oneShotSkills: [] },
    });
  });

  it("is undefined without an item (dynalite 4.0.0, or nothing stored)", () => {
    // Act
    const none = storedItemOf(conditionalCheckFailed());
    const undefinedItem = storedItemOf(conditionalCheckFailed(undefined));
    const notAnError = storedItemOf(undefined);

    // Assess
    expect(none).toBeUndefined();
    expect(undefinedItem).toBeUndefined();
    expect(notAnError).toBeUndefined();
  });

  it("is undefined for a type a process item never holds, or a number the DocumentClient would refuse: the store reads instead", () => {
    // Act
    const set = storedItemOf(conditionalCheckFailed({ tags: { SS: ["a"] } }));
    const nested = storedItemOf(conditionalCheckFailed({ pending: { L: [{ B: new Uint8Array([1]) }] } }));
    const huge = storedItemOf(conditionalCheckFailed({ version: { N: "9007199254740993" } }));

    // Assess
    expect(set).toBeUndefined();
    expect(nested).toBeUndefined();
    expect(huge).toBeUndefined();
  });
});
