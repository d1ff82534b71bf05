import { describe, expect, it } from "vitest";
import { LaneMessageMalformed, LaneMessageTooLarge } from "../../shared/lanes/lane-errors.js";
import { decodeLaneMessage, encodeLaneMessage, laneMessageKinds } from "../../shared/lanes/lane-message.js";
import type { LaneMessage } from "../../shared/lanes/lane-message.js";

function message(overrides: Partial<LaneMessage> = {}): LaneMessage {
  return {
    requestId: "req-1",
    processId: "proc-1",
    tenant: "acme",
    user: { login: "alice", roles: ["dev"], projects: ["p1"] },
    kind: "skill.activate",
    payload: { skillName: "code-review", args: "src/" },
    enqueuedAt: "2025-01-02T03:04:05.678Z",
    ...overrides,
  };
}

function caught<E>(action: () => unknown, type: abstract new (...args: never[]) => E): E {
  try {
    action();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected ${type.name}`);
}

const malformed = (action: () => unknown): LaneMessageMalformed => caught(action, LaneMessageMalformed);

describe("lane message codec", () => {
  it("round-trips every kind, with and without a user", () => {
    for (const kind of laneMessageKinds) {
      // Prepare
      const original = message({ kind, user: kind === "process.report" ? null : { login: "bob" } });

      // Act
      const decoded = decodeLaneMessage(encodeLaneMessage(original));

      // Assess
      expect(decoded).toEqual(original);
    }
  });

  it("keeps a missing payload absent", () => {
    // Prepare
    const { payload: _payload, ...withoutPayload } = message();

    // Act
    const decoded = decodeLaneMessage(JSON.stringify(withoutPayload));

    // Assess
    expect(decoded.payload).toBeUndefined();
    expect(decoded.requestId).toBe("req-1");
  });

  it("encodes an undefined payload so that it decodes again", () => {
    // Act
    const decoded = decodeLaneMessage(encodeLaneMessage(message({ payload: undefined })));

    // Assess
    expect(decoded.payload).toBeUndefined();
  });

  it("strips unknown top-level keys instead of rejecting them", () => {
    // Prepare
    const body = JSON.stringify({ ...message(), addedByNewerProducer: 1 });

    // Act
    const decoded = decodeLaneMessage(body);

    // Assess
    expect(decoded).not.toHaveProperty("addedByNewerProducer");
  });

  it.each([
    ["not JSON", "{not json"],
    ["an array", "[]"],
    ["null", "null"],
    ["an unknown kind", JSON.stringify(message({ kind: "skill.explode" as LaneMessage["kind"] }))],
    ["an empty requestId", JSON.stringify(message({ requestId: "" }))],
    ["a user without login", JSON.stringify({ ...message(), user: { roles: [] } })],
    ["a missing tenant", JSON.stringify({ ...message(), tenant: undefined })],
    ["a non-date enqueuedAt", JSON.stringify(message({ enqueuedAt: "yesterday" }))],
  ])("rejects a body that is %s as malformed", (_label, body) => {
    // Act
    const error = malformed(() => decodeLaneMessage(body));

    // Assess
    expect(error.code).toBe("INVALID_REQUEST");
    expect(error.message).toMatch(/Malformed lane message/);
  });

  it("names the offending field", () => {
    // Act
    const error = malformed(() => decodeLaneMessage(JSON.stringify(message({ kind: "nope" as LaneMessage["kind"] }))));

    // Assess
    expect(error.issues.some((issue) => issue.startsWith("kind:"))).toBe(true);
  });

  it("rejects a body that is not a string", () => {
    // Act
    const error = malformed(() => decodeLaneMessage(undefined));

    // Assess
    expect(error.reason).toBe("body is not a string");
  });

  it("does not let a __proto__ key reach the prototype", () => {
    // Prepare
    const body = `{"__proto__":{"polluted":true},${JSON.stringify(message()).slice(1)}`;

    // Act
    const decoded = decodeLaneMessage(body);

    // Assess
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect((decoded as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses to encode a message that violates the schema", () => {
    // Act
    const error = malformed(() => encodeLaneMessage(message({ processId: "" })));

    // Assess
    expect(error.issues.some((issue) => issue.startsWith("processId:"))).toBe(true);
  });

  it("refuses to encode a payload JSON cannot carry", () => {
    // Act
    const error = malformed(() => encodeLaneMessage(message({ payload: { big: 10n } })));

    // Assess
    expect(error.reason).toBe("payload is not JSON-serializable");
  });

  it("rejects a message above the size limit with its size", () => {
    // Prepare
    const big = message({ payload: { text: "x".repeat(300 * 1024) } });

    // Act
    const error = caught(() => encodeLaneMessage(big), LaneMessageTooLarge);

    // Assess
    expect(error.bytes).toBeGreaterThan(300 * 1024);
    expect(error.limit).toBe(256 * 1024);
  });

  it("counts the limit in UTF-8 bytes, not characters", () => {
    // Prepare: 100 000 three-byte characters are 300 000 bytes.
    const wide = message({ payload: "€".repeat(100_000) });

    // Act
    const act = () => encodeLaneMessage(wide);

    // Assess
    expect(act).toThrow(LaneMessageTooLarge);
  });

  it("escapes the characters SQS refuses but JSON leaves raw, losslessly", () => {
    // Prepare
    const original = message({ payload: { text: "a\uFFFFb\uFFFEc\u0000d\uD800e😀" } });

    // Act
    const body = encodeLaneMessage(original);

    // Assess
    const forbidden = [...body].filter((c) => {
      const code = c.codePointAt(0) ?? 0;
      return (code < 0x20 && c !== "\t" && c !== "\n" && c !== "\r") || code === 0xfffe || code === 0xffff || code > 0xffff;
    });
    expect(forbidden).toEqual([]);
    expect(body).toContain("\\ud83d\\ude00");
    expect(body).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(decodeLaneMessage(body)).toEqual(original);
  });
});
