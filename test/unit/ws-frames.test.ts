import { describe, expect, it } from "vitest";
import { MAX_CLIENT_FRAME_BYTES, parseClientFrame } from "../../shared/connections/ws-frames.js";

const refusal = (body: string | undefined, options: { isBase64Encoded?: boolean } = {}) => {
  const parsed = parseClientFrame(body, options);
  if (parsed.ok) throw new Error(`expected a refusal, got ${JSON.stringify(parsed.frame)}`);
  return parsed;
};

describe("parseClientFrame: accepted frames", () => {
  it("accepts process-skill with every ProcessSkillRequest field plus processId", () => {
    // Prepare
    const body = JSON.stringify({
      type: "process-skill",
      processId: "p1",
      command: "ACTIVATE",
      skillName: "review",
      args: "a b",
      oneShot: true,
      requestId: "r-1",
    });

    // Act
    const parsed = parseClientFrame(body);

    // Assess
    expect(parsed).toEqual({
      ok: true,
      frame: {
        type: "process-skill",
        processId: "p1",
        command: "ACTIVATE",
        skillName: "review",
        args: "a b",
        oneShot: true,
        requestId: "r-1",
      },
    });
  });

  it("accepts process-subscribe and skill-list with and without their optional fields", () => {
    // Prepare
    const bodies = [
      { type: "process-subscribe", processId: "p1" },
      { type: "process-subscribe", processId: "p1", requestId: "sub-1" },
      { type: "skill-list", projectId: "proj1" },
      { type: "skill-list", projectId: "proj1", processId: "p1", requestId: "list-1" },
    ];

    // Act
    const parsed = bodies.map((b) => parseClientFrame(JSON.stringify(b)));

    // Assess
    expect(parsed).toEqual(bodies.map((frame) => ({ ok: true, frame })));
  });
});

describe("parseClientFrame: refused frames", () => {
  it.each([
    ["not JSON", "{type: process-skill", /not valid JSON/],
    ["a JSON array", "[1,2]", /JSON object/],
    ["a JSON string", '"process-skill"', /JSON object/],
    ["null", "null", /JSON object/],
    ["an empty body", "", /Empty frame/],
    ["no type", JSON.stringify({ processId: "p1" }), /no 'type'/],
    ["a numeric type", JSON.stringify({ type: 7 }), /no 'type'/],
    ["an unknown type", JSON.stringify({ type: "process-kill", processId: "p1" }), /Unknown frame type "process-kill"/],
    ["a process-skill without processId", JSON.stringify({ type: "process-skill", command: "CLEAR_ALL" }), /processId/],
    ["an unknown command", JSON.stringify({ type: "process-skill", processId: "p1", command: "EXPLODE" }), /command/],
    ["a misspelt field", JSON.stringify({ type: "process-skill", processId: "p1", command: "ACTIVATE", skillname: "x" }), /skillname/],
    ["a subscribe with an empty processId", JSON.stringify({ type: "process-subscribe", processId: "" }), /processId/],
    ["a skill-list without projectId", JSON.stringify({ type: "skill-list" }), /projectId/],
    ["a processId with control characters", JSON.stringify({ type: "process-subscribe", processId: "p\u0000" }), /processId/],
  ])("refuses %s as INVALID_REQUEST", (_label, body, message) => {
    // Act
    const parsed = refusal(body);

    // Assess
    expect(parsed.error.code).toBe("INVALID_REQUEST");
    expect(parsed.error.message).toMatch(message);
  });

  it("keeps a readable requestId of a refused frame so the client can correlate the error", () => {
    // Act
    const parsed = refusal(JSON.stringify({ type: "process-skill", processId: "p1", command: "NOPE", requestId: "r-9" }));

    // Assess
    expect(parsed.requestId).toBe("r-9");
  });

  it("does not echo a requestId that is not a valid one", () => {
    // Act
    const parsed = refusal(JSON.stringify({ type: "nope", requestId: { evil: true } }));

    // Assess
    expect(parsed.requestId).toBeUndefined();
  });

  it("refuses binary frames and frames above the inbound message limit", () => {
    // Prepare
    const huge = JSON.stringify({ type: "skill-list", projectId: "p", pad: "x".repeat(MAX_CLIENT_FRAME_BYTES) });

    // Act
    const binary = refusal("eyJ0eXBlIjoic2tpbGwtbGlzdCJ9", { isBase64Encoded: true });
    const tooLarge = refusal(huge);

    // Assess
    expect(binary.error.message).toMatch(/Binary frames/);
    expect(tooLarge.error.message).toMatch(/exceeds/);
  });

  it("bounds an echoed unknown type in the message", () => {
    // Act
    const parsed = refusal(JSON.stringify({ type: "t".repeat(10_000) }));

    // Assess
    expect(parsed.error.message.length).toBeLessThan(300);
  });
});
