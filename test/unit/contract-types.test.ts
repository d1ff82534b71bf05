import { describe, expect, expectTypeOf, it } from "vitest";
import * as contract from "../../contract/index.js";
import type { Closed } from "../../contract/index.js";
import type { ServerFrame } from "../../shared/connections/server-frames.js";
import type { Turn } from "../../shared/turns/turn.js";
import { STATUS_BY_CODE } from "../../shared/http/error-table.js";
import { ProcessSkillRequest } from "../../shared/steering/process-skill-request.js";

/**
 * The service speaks the contract (contract/): its answers' types are the contract's at least
 * (checked by `tsc`, which compiles this file), and its parsers are the contract's schemas.
 */
describe("the service and the contract", () => {
  it("sends frames and turns of the contract's shapes (type-level: tsc fails on a drift)", () => {
    // Assess: these compile only while the service's types are assignable to the contract's.
    const asFrame = (frame: ServerFrame): Closed<contract.ServerFrame> => frame;
    const asTurn = (turn: Turn): Closed<contract.Turn> => turn;
    expectTypeOf(asFrame).returns.toEqualTypeOf<Closed<contract.ServerFrame>>();
    expectTypeOf(asTurn).returns.toEqualTypeOf<Closed<contract.Turn>>();
  });

  it("answers each error code with the contract's status, VERSIONS_UNAVAILABLE included", () => {
    // Assess
    expect(STATUS_BY_CODE).toBe(contract.STATUS_BY_CODE);
    expect(STATUS_BY_CODE.VERSIONS_UNAVAILABLE).toBe(501);
  });

  it("parses requests with the contract's schemas and their English messages", () => {
    // Act
    const parsed = ProcessSkillRequest.safeParse({ command: "ACTIVATE", skillname: "x" });

    // Assess
    expect(ProcessSkillRequest).toBe(contract.ProcessSkillRequest);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.message)).toEqual(['Unrecognized key: "skillname"']);
  });
});
